import query from '@zeit/cosmosdb-query';
import { CosmosError, badRequest } from './errors';
import { QuerySpec } from './query';
import { JsonValue } from './types';

/**
 * The query plan (`x-ms-cosmos-is-query-plan-request`). The SDK uses it when told to
 * (`forceQueryPlan`) and then sends the plan's `rewrittenQuery` to each partition key range and merges
 * the answers itself: TOP by cutting the merged stream, ORDER BY by merging on each row's
 * `orderByItems`, VALUE aggregates by combining each range's `[{"item": partial}]`. The emulator plans
 * what its engine runs: TOP, ORDER BY, and one VALUE aggregate (COUNT, SUM, MIN, MAX, AVG). Its rewritten
 * queries are the original text plus a marker comment (`rewrittenQuery` is only ever sent back here),
 * which `runPlannedQuery` below turns into the shapes the SDK expects. What it cannot plan (an aggregate
 * without VALUE or inside an expression, ORDER BY over `SELECT *` with a JOIN) is refused with 400.
 */
export interface AstNode {
  type: string;
  [key: string]: unknown;
}

const AGGREGATES: Record<string, string> = { COUNT: 'Count', SUM: 'Sum', MIN: 'Min', MAX: 'Max', AVG: 'Average' };
const FILTER_PLACEHOLDER = '{documentdb-formattableorderbyquery-filter}';
export const ORDER_BY_MARKER = '\n/*opstream-emulator:order-by filter(';
export const AGGREGATE_MARKER = '\n/*opstream-emulator:aggregate*/';

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

function containsAggregate(v: unknown): boolean {
  if (Array.isArray(v)) return v.some(containsAggregate);
  if (!isNode(v)) return typeof v === 'object' && v !== null && Object.values(v).some(containsAggregate);
  if (v.type === 'select_query') return false; // a subquery aggregates on its own
  if (v.type === 'scalar_function_expression' && String(node(v.name)?.name ?? '').toUpperCase() in AGGREGATES) return true;
  return Object.values(v).some(containsAggregate);
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

function topValue(top: AstNode | undefined, spec: QuerySpec): number | null {
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
  let body: AstNode | undefined;
  try {
    body = node(query(spec.query).ast.body);
  } catch (err) {
    throw badRequest(`Syntax error in query "${spec.query.slice(0, 300)}": ${err instanceof Error ? err.message : String(err)}`);
  }
  if (!body || body.type !== 'select_query') throw cannotPlan('not a SELECT query');
  const select = node(body.select) ?? { type: 'select_specification' };
  const aggregate = valueAggregate(select);
  if (!aggregate && containsAggregate(select))
    throw cannotPlan('aggregates need SELECT VALUE with the aggregate alone (no GROUP BY or expressions around it)');
  const sorts = nodes(node(body.orderBy)?.expressions);
  if (aggregate && sorts.length > 0) throw cannotPlan('ORDER BY with an aggregate');
  const hasJoins = nodes(node(body.from)?.joins).length > 0;
  if (sorts.length > 0 && select['*'] === true && hasJoins) throw cannotPlan('ORDER BY over SELECT * with a JOIN');

  let rewrittenQuery = '';
  if (sorts.length > 0) rewrittenQuery = `${spec.query}${ORDER_BY_MARKER}${FILTER_PLACEHOLDER})*/`;
  else if (aggregate) rewrittenQuery = `${spec.query}${AGGREGATE_MARKER}`;
  return {
    partitionedQueryExecutionInfoVersion: 2,
    queryInfo: {
      distinctType: 'None',
      top: topValue(node(body.top), spec),
      offset: null,
      limit: null,
      orderBy: sorts.map((s) => (String(s.order ?? 'ASC').toUpperCase() === 'DESC' ? 'Descending' : 'Ascending')),
      orderByExpressions: sorts.map((s) => expressionText(node(s.expression) ?? { type: '?' })),
      groupByExpressions: [],
      groupByAliases: [],
      aggregates: aggregate ? [AGGREGATES[aggregate.name]] : [],
      groupByAliasToAggregateType: {},
      rewrittenQuery,
      hasSelectValue: select.value !== undefined && select.value !== null,
      hasNonStreamingOrderBy: false,
    },
    queryRanges: [{ min: '', max: 'FF', isMinInclusive: true, isMaxInclusive: false }],
  };
}
