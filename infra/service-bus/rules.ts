import { Typed, isRecord, types } from './amqp';
import { CorrelationFilterSpec, RuleDef, compileSqlFilter, parseRule } from './config';
import { BrokerError } from './errors';
import { SqlFilterError, compileSqlAction } from './sql-filter';

/**
 * Rule management over `$management` (`com.microsoft:add-rule`, `remove-rule`, `enumerate-rules`), in the
 * shapes of Service Bus's AMQP request/response documentation: a rule description is a described list
 * [filter, action, name] whose filter and action are described lists too.
 */
const CODE = {
  ruleDescription: 0x0000013700000004,
  emptyAction: 0x0000013700000005,
  sqlAction: 0x0000013700000006,
  sqlFilter: 0x0000001370000006,
  trueFilter: 0x0000001370000007,
  falseFilter: 0x0000001370000008,
  correlationFilter: 0x0000001370000009,
} as const;

/** Correlation filter fields in the order of the described list, with their add-rule map keys. */
const CORRELATION_FIELDS: [Exclude<keyof CorrelationFilterSpec, 'Properties'>, string][] = [
  ['CorrelationId', 'correlation-id'],
  ['MessageId', 'message-id'],
  ['To', 'to'],
  ['ReplyTo', 'reply-to'],
  ['Label', 'label'],
  ['SessionId', 'session-id'],
  ['ReplyToSessionId', 'reply-to-session-id'],
  ['ContentType', 'content-type'],
];

function sqlRule(name: string, expression: string, action: string | undefined): RuleDef {
  try {
    // the service keeps 1=1 and 1=0 as true and false filters
    const trimmed = expression.replace(/\s+/g, '');
    const base: RuleDef =
      trimmed === '1=1'
        ? { name, kind: 'true' }
        : trimmed === '1=0'
          ? { name, kind: 'false' }
          : { name, kind: 'sql', sql: expression, compiled: compileSqlFilter(expression) };
    return withAction(base, action);
  } catch (err) {
    if (err instanceof SqlFilterError)
      throw new BrokerError('argument', `The SQL expression '${expression}' is not valid: ${err.message}.`);
    throw err;
  }
}

function withAction(rule: RuleDef, action: string | undefined): RuleDef {
  if (action === undefined) return rule;
  try {
    return { ...rule, action, compiledAction: compileSqlAction(action) };
  } catch (err) {
    if (err instanceof SqlFilterError) throw new BrokerError('argument', `The SQL rule action '${action}' is not valid: ${err.message}.`);
    throw err;
  }
}

/** A rule from its name, a SQL or correlation filter and an optional SQL action (errors in the service's words). */
export function ruleFromParts(
  name: string,
  filter: { sql: string } | { correlation: CorrelationFilterSpec },
  action: string | undefined,
): RuleDef {
  if ('sql' in filter) return sqlRule(name, filter.sql, action);
  return withAction({ name, kind: 'correlation', correlation: filter.correlation }, action);
}

/** The rule an `add-rule` request describes. */
export function ruleFromRequest(body: Record<string, unknown>): RuleDef {
  const name = body['rule-name'];
  const d = body['rule-description'];
  if (typeof name !== 'string' || name === '') throw new BrokerError('argument', 'rule-name must be a non-empty string.');
  if (!isRecord(d)) throw new BrokerError('argument', 'rule-description must be a map.');
  const actionMap = d['sql-rule-action'];
  const action = isRecord(actionMap) && typeof actionMap.expression === 'string' ? actionMap.expression : undefined;
  const sql = d['sql-filter'];
  if (isRecord(sql)) {
    if (typeof sql.expression !== 'string') throw new BrokerError('argument', 'sql-filter.expression must be a string.');
    return sqlRule(name, sql.expression, action);
  }
  const corr = d['correlation-filter'];
  if (isRecord(corr)) {
    const spec: CorrelationFilterSpec = {};
    for (const [field, key] of CORRELATION_FIELDS) {
      const v = corr[key];
      if (typeof v === 'string') spec[field] = v;
    }
    if (isRecord(corr.properties)) spec.Properties = { ...corr.properties };
    return withAction({ name, kind: 'correlation', correlation: spec }, action);
  }
  throw new BrokerError('argument', 'rule-description needs a sql-filter or a correlation-filter.');
}

function str(v: string | undefined): Typed {
  return v === undefined ? types.wrap(null) : types.wrap_string(v);
}

function filterList(rule: RuleDef): Typed {
  switch (rule.kind) {
    case 'true':
      return types.wrap_described(types.wrap_list([types.wrap_string('1=1')]), CODE.trueFilter);
    case 'false':
      return types.wrap_described(types.wrap_list([types.wrap_string('1=0')]), CODE.falseFilter);
    case 'sql':
      return types.wrap_described(types.wrap_list([str(rule.sql)]), CODE.sqlFilter);
    case 'correlation': {
      const c = rule.correlation ?? {};
      const fields = CORRELATION_FIELDS.map(([f]) => str(c[f]));
      // the SDK decodes the ninth field as a map whenever it is present
      const props = types.wrap_map(c.Properties ?? {});
      return types.wrap_described(types.wrap_list([...fields, props]), CODE.correlationFilter);
    }
  }
}

/** A rule as `enumerate-rules` answers it. */
export function ruleDescription(rule: RuleDef): Typed {
  const action =
    rule.action === undefined
      ? types.wrap_described(types.wrap_list([]), CODE.emptyAction)
      : types.wrap_described(types.wrap_list([types.wrap_string(rule.action)]), CODE.sqlAction);
  return types.wrap_described(types.wrap_list([filterList(rule), action, types.wrap_string(rule.name)]), CODE.ruleDescription);
}

/**
 * A rule as the journal keeps it: Config.json's shape, so a restart reads it with the same parser.
 * JSON has no dates: a correlation property that is a timestamp is kept as `{"$date": ms}`.
 */
export function storedRule(rule: RuleDef): Record<string, unknown> {
  const props: Record<string, unknown> = {};
  if (rule.kind === 'sql')
    Object.assign(props, { FilterType: 'Sql', SqlFilter: { SqlExpression: rule.sql, Parameters: rule.filterParameters } });
  else if (rule.kind === 'correlation') {
    const c: CorrelationFilterSpec = { ...rule.correlation };
    if (c.Properties)
      c.Properties = Object.fromEntries(Object.entries(c.Properties).map(([k, v]) => [k, v instanceof Date ? { $date: v.getTime() } : v]));
    Object.assign(props, { FilterType: 'Correlation', CorrelationFilter: c });
  } else props.FilterType = rule.kind === 'true' ? 'TrueFilter' : 'FalseFilter';
  if (rule.action !== undefined) props.Action = { SqlExpression: rule.action, Parameters: rule.actionParameters };
  return { Name: rule.name, Properties: props };
}

/** The rule {@link storedRule} kept. */
export function restoreRule(raw: unknown, what: string): RuleDef {
  const rule = parseRule(raw, what);
  const p = rule.correlation?.Properties;
  if (p) {
    const isDate = (v: unknown): v is { $date: number } => isRecord(v) && typeof v.$date === 'number';
    rule.correlation = {
      ...rule.correlation,
      Properties: Object.fromEntries(Object.entries(p).map(([k, v]) => [k, isDate(v) ? new Date(v.$date) : v])),
    };
  }
  return rule;
}
