import { BrokerError } from '../errors';
import { CorrelationFilterSpec, RuleDef, entityName, ConfigError } from '../config';
import { ruleFromParts } from '../rules';
import { NS, XmlNode, XmlValue, child, isNode, text } from './xml';

/**
 * Rule descriptions of the administration API (`RuleDescription`: Filter, Action, Name) ↔ the stand-in's
 * rules. Filter and action types travel in `i:type`; parameters as DataContract key/value pairs.
 */
const CORRELATION_FIELDS: (keyof Omit<CorrelationFilterSpec, 'Properties'>)[] = [
  'CorrelationId',
  'MessageId',
  'To',
  'ReplyTo',
  'Label',
  'SessionId',
  'ReplyToSessionId',
  'ContentType',
];

function typeOf(node: XmlNode | undefined): string {
  const t = node?.['@_type'];
  return typeof t === 'string' ? t.replace(/^.*:/, '') : '';
}

/** `KeyValueOfstringanyType` pairs with XML Schema types → values. */
function keyValues(node: XmlValue): Record<string, unknown> | undefined {
  if (!isNode(node)) return undefined;
  const pairs = node.KeyValueOfstringanyType;
  if (!Array.isArray(pairs)) return undefined;
  const out: Record<string, unknown> = {};
  for (const pair of pairs.filter(isNode)) {
    const key = text(pair.Key);
    const value = pair.Value;
    const raw = text(value) ?? '';
    if (key === undefined || !isNode(value)) throw new BrokerError('argument', 'A key/value pair needs a Key and a typed Value.');
    const type = typeOf(value);
    if (type === 'double' || type === 'int' || type === 'long') out[key] = Number(raw);
    else if (type === 'boolean') out[key] = raw === 'true';
    else if (type === 'dateTime') out[key] = new Date(raw);
    else if (type === 'string') out[key] = raw;
    else throw new BrokerError('argument', `The value type '${type}' of '${key}' is not supported.`);
  }
  return out;
}

function keyValueXml(values: Record<string, unknown> | undefined): XmlNode | undefined {
  if (!values || !Object.keys(values).length) return undefined;
  return {
    KeyValueOfstringanyType: Object.entries(values).map(([key, v]) => {
      const type =
        typeof v === 'number'
          ? Number.isInteger(v)
            ? 'int'
            : 'double'
          : typeof v === 'boolean'
            ? 'boolean'
            : v instanceof Date
              ? 'dateTime'
              : 'string';
      return {
        Key: key,
        Value: { '@_i:type': `d6p1:${type}`, '@_xmlns:d6p1': NS.schema, '#text': v instanceof Date ? v.toISOString() : String(v) },
      };
    }),
  };
}

/** The rule a `RuleDescription` (or a subscription's `DefaultRuleDescription`) describes. */
export function ruleFromDescription(fields: XmlNode, fallbackName: string): RuleDef {
  const given = text(fields.Name);
  let name: string;
  try {
    name = given ? entityName(given, 'RuleDescription') : fallbackName;
  } catch (err) {
    if (err instanceof ConfigError) throw new BrokerError('argument', err.message);
    throw err;
  }
  const filter = child(fields, 'Filter');
  const action = child(fields, 'Action');
  const filterType = typeOf(filter) || 'SqlFilter';
  const actionExpression = typeOf(action) === 'SqlRuleAction' ? text(action?.SqlExpression) : undefined;
  const actionParameters = keyValues(action?.Parameters);
  let rule: RuleDef;
  if (filterType === 'CorrelationFilter') {
    const spec: CorrelationFilterSpec = {};
    for (const f of CORRELATION_FIELDS) {
      const v = text(filter?.[f]);
      if (v) spec[f] = v;
    }
    const props = keyValues(filter?.Properties);
    if (props) spec.Properties = props;
    rule = ruleFromParts(name, { correlation: spec }, actionExpression);
  } else if (filterType === 'TrueFilter' || filterType === 'FalseFilter') {
    rule = ruleFromParts(name, { sql: filterType === 'TrueFilter' ? '1=1' : '1=0' }, actionExpression);
  } else if (filterType === 'SqlFilter') {
    const sql = text(filter?.SqlExpression);
    if (!sql) throw new BrokerError('argument', 'A SqlFilter needs a SqlExpression.');
    rule = ruleFromParts(name, { sql }, actionExpression);
    const filterParameters = keyValues(filter?.Parameters);
    if (filterParameters) rule.filterParameters = filterParameters;
  } else throw new BrokerError('argument', `The filter type '${filterType}' is not supported.`);
  if (actionParameters) rule.actionParameters = actionParameters;
  return rule;
}

/** A rule as the service describes it. */
export function describeRule(rule: RuleDef, createdAt: number): XmlNode {
  let filter: XmlNode;
  if (rule.kind === 'correlation') {
    const c = rule.correlation ?? {};
    filter = { '@_i:type': 'CorrelationFilter' };
    for (const f of CORRELATION_FIELDS) if (c[f]) filter[f] = c[f];
    const props = keyValueXml(c.Properties);
    filter.Properties = props ?? '';
  } else {
    const type = rule.kind === 'true' ? 'TrueFilter' : rule.kind === 'false' ? 'FalseFilter' : 'SqlFilter';
    const sql = rule.kind === 'true' ? '1=1' : rule.kind === 'false' ? '1=0' : (rule.sql ?? '');
    filter = { '@_i:type': type, SqlExpression: sql, Parameters: keyValueXml(rule.filterParameters), CompatibilityLevel: 20 };
  }
  const action: XmlNode =
    rule.action === undefined
      ? { '@_i:type': 'EmptyRuleAction' }
      : { '@_i:type': 'SqlRuleAction', SqlExpression: rule.action, Parameters: keyValueXml(rule.actionParameters), CompatibilityLevel: 20 };
  return {
    '@_xmlns': NS.connect,
    '@_xmlns:i': NS.instance,
    Filter: filter,
    Action: action,
    CreatedAt: new Date(rule.createdAt ?? createdAt).toISOString(),
    Name: rule.name,
  };
}
