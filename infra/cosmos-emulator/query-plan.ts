import query from '@zeit/cosmosdb-query';
import { CosmosError, badRequest } from './errors';
import { offsetLimit, isGrouped } from './extended-query';
import { planGroupQuery } from './group-by';
import { QuerySpec } from './query';
import { LiftedQuery, liftClauses } from './sql-text';
import { JsonObject, JsonValue } from './types';

/**
 * The query plan (`x-ms-cosmos-is-query-plan-request`). The SDK uses it when told to
 * (`forceQueryPlan`) and then sends the plan's `rewrittenQuery` to each partition key range and merges
 * the answers itself: TOP and OFFSET/LIMIT by cutting the merged stream, ORDER BY by merging on each
 * row's `orderByItems`, DISTINCT (ordered or not) by dropping repeats, VALUE aggregates by combining each
 * range's `[{"item": partial}]`, GROUP BY by merging each range's partial groups. Rewritten queries are
 * the query text plus a marker comment (`rewrittenQuery` is only ever sent back here), which
 * planned-query.ts turns into the shapes the SDK expects. What it cannot plan (ORDER BY with an aggregate
 * or GROUP BY, ORDER BY over `SELECT *` with a JOIN, ordered DISTINCT not over the sorted value) is
 * refused with 400.
 */
export interface AstNode {
  type: string;
  [key: string]: unknown;
}

const AGGREGATES: Record<string, string> = { COUNT: 'Count', SUM: 'Sum', MIN: 'Min', MAX: 'Max', AVG: 'Average' };
const FILTER_PLACEHOLDER = '{documentdb-formattableorderbyquery-filter}';
export const ORDER_BY_MARKER = '\n/*opstream-emulator:order-by filter(';
export const AGGREGATE_MARKER = '\n/*opstream-emulator:aggregate*/';
export const GROUP_MARKER = '\n/*opstream-emulator:group*/';

export const isNode = (v: unknown): v is AstNode =>
  typeof v === 'object' && v !== null && typeof (v as { type?: unknown }).type === 'string';
const node = (v: unknown): AstNode | undefined => (isNode(v) ? v : undefined);
const nodes = (v: unknown): AstNode[] => (Array.isArray(v) ? v.filter(isNode) : []);

function cannotPlan(why: string): CosmosError {
  return badRequest(
    `The emulator cannot plan this cross-partition query: ${why}. Run it without forceQueryPlan (the emulator answers it whole) or rewrite it.`,
  );
}

/** The top-level aggregate of `SELECT VALUE AGG(x)`, if that is what the select is. */
export function valueAggregate(select: AstNode): { name: string; call: AstNode } | undefined {
  const value = node(select.value);
  if (!value || value.type !== 'scalar_function_expression') return undefined;
  const name = String(node(value.name)?.name ?? '').toUpperCase();
  return name in AGGREGATES ? { name, call: value } : undefined;
}

/** SQL text of a simple expression (`c.a.b`, `c["x y"]`, `c[0]`), for the SDK's resume filters. */
export function expressionText(e: AstNode): string {
  if (e.type === 'identifier') return String(e.name);
  if (e.type === 'scalar_member_expression') {
    const object = expressionText(node(e.object) ?? { type: '?' });
    const property = node(e.property);
    if (!property) return object;
    if (!e.computed && property.type === 'identifier') return `${object}.${String(property.name)}`;
    if (property.type === 'string_constant') return `${object}[${JSON.stringify(property.value)}]`;
    if (property.type === 'number_constant') return `${object}[${String(property.value)}]`;
  }
  return '(expression the emulator cannot print)';
}

export function topValue(top: AstNode | undefined, spec: QuerySpec): number | null {
  const value = node(top?.value);
  if (!value) return null;
  if (value.type === 'number_constant' && typeof value.value === 'number') return value.value;
  if (value.type === 'parameter_name') {
    const p = spec.parameters.find((x) => x.name === value.name);
    if (p && typeof p.value === 'number') return p.value;
  }
  throw cannotPlan('TOP must be a number or a numeric parameter');
}

/** The plan the SDK asked for, as the service's `partitionedQueryExecutionInfo` (version 2). */
export function buildQueryPlan(spec: QuerySpec): JsonValue {
  const lifted = liftClauses(spec.query);
  let body: AstNode | undefined;
  try {
    body = node(query(lifted.core).ast.body);
  } catch (err) {
    throw badRequest(`Syntax error in query "${spec.query.slice(0, 300)}": ${err instanceof Error ? err.message : String(err)}`);
  }
  if (!body || body.type !== 'select_query') throw cannotPlan('not a SELECT query');
  const window = offsetLimit(lifted, spec);
  const limits = { offset: window?.offset ?? null, limit: window?.limit ?? null };
  if (isGrouped(lifted)) return planInfo(groupPlan(spec, lifted), limits);
  const select = node(body.select) ?? { type: 'select_specification' };
  const aggregate = valueAggregate(select);
  const sorts = nodes(node(body.orderBy)?.expressions);
  if (aggregate && sorts.length > 0) throw cannotPlan('ORDER BY with an aggregate');
  const hasJoins = nodes(node(body.from)?.joins).length > 0;
  if (sorts.length > 0 && select['*'] === true && hasJoins) throw cannotPlan('ORDER BY over SELECT * with a JOIN');
  if (lifted.distinct && sorts.length > 0 && !orderedByValue(select, sorts))
    throw cannotPlan('DISTINCT with ORDER BY needs SELECT DISTINCT VALUE <e> … ORDER BY <e> (one expression, the same)');

  // Each range answers rows for the SDK to merge; DISTINCT, TOP and OFFSET/LIMIT it applies itself.
  let rewrittenQuery = '';
  if (sorts.length > 0)
    rewrittenQuery = `${lifted.distinct ? lifted.withoutLimits : lifted.core}${ORDER_BY_MARKER}${FILTER_PLACEHOLDER})*/`;
  else if (aggregate) rewrittenQuery = `${lifted.core}${AGGREGATE_MARKER}`;
  else if (lifted.distinct) rewrittenQuery = lifted.withoutLimits;
  else if (window) rewrittenQuery = lifted.core;
  return planInfo(
    {
      distinctType: lifted.distinct ? (sorts.length > 0 ? 'Ordered' : 'Unordered') : 'None',
      top: topValue(node(body.top), spec),
      orderBy: sorts.map((s) => (String(s.order ?? 'ASC').toUpperCase() === 'DESC' ? 'Descending' : 'Ascending')),
      orderByExpressions: sorts.map((s) => expressionText(node(s.expression) ?? { type: '?' })),
      aggregates: aggregate ? [AGGREGATES[aggregate.name]] : [],
      rewrittenQuery,
      hasSelectValue: select.value !== undefined && select.value !== null,
    },
    limits,
  );
}

function planInfo(info: JsonObject, limits: { offset: number | null; limit: number | null }): JsonValue {
  return {
    partitionedQueryExecutionInfoVersion: 2,
    queryInfo: {
      distinctType: 'None',
      top: null,
      orderBy: [],
      orderByExpressions: [],
      groupByExpressions: [],
      groupByAliases: [],
      aggregates: [],
      groupByAliasToAggregateType: {},
      hasNonStreamingOrderBy: false,
      ...info,
      ...limits,
    },
    queryRanges: [{ min: '', max: 'FF', isMinInclusive: true, isMaxInclusive: false }],
  };
}

/** The plan of a GROUP BY or SELECT-list aggregate query: each range answers partial groups. */
function groupPlan(spec: QuerySpec, lifted: LiftedQuery): JsonObject {
  const plan = planGroupQuery(spec.query, lifted.core, lifted.groupBy);
  if (plan.hasOrderBy) throw cannotPlan('ORDER BY with GROUP BY or SELECT-list aggregates');
  const first = plan.items[0];
  const aliasTypes: JsonObject = {};
  if (!plan.value) for (const item of plan.items) aliasTypes[item.name] = 'aggregate' in item ? item.aggregate : null;
  return {
    distinctType: lifted.distinct ? 'Unordered' : 'None',
    top: plan.top ? topValue(plan.top, spec) : null,
    groupByExpressions: plan.keyTexts,
    groupByAliases: plan.value ? [] : plan.items.map((i) => i.name),
    aggregates: plan.value && first && 'aggregate' in first ? [first.aggregate] : [],
    groupByAliasToAggregateType: aliasTypes,
    rewrittenQuery: `${lifted.withoutLimits}${GROUP_MARKER}`,
    hasSelectValue: plan.value,
  };
}

const sameNode = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** Ordered DISTINCT drops only adjacent repeats: right when rows are sorted by the value itself. */
function orderedByValue(select: AstNode, sorts: AstNode[]): boolean {
  return sorts.length === 1 && isNode(select.value) && sameNode(select.value, sorts[0].expression);
}
