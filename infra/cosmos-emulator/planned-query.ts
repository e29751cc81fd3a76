import query from '@zeit/cosmosdb-query';
import { badRequest } from './errors';
import { distinctBy, pageOf, runItemQuery } from './extended-query';
import { groupPartials, planGroupQuery } from './group-by';
import { AGGREGATE_MARKER, AstNode, GROUP_MARKER, ORDER_BY_MARKER, isNode, valueAggregate } from './query-plan';
import { CompiledQuery, QueryPage, QuerySpec, compile, engineQuery, runQuery } from './query';
import { liftClauses } from './sql-text';
import { JsonObject, JsonValue, isJsonObject } from './types';

/**
 * Runs the per-range queries the SDK sends from the emulator's query plan (see query-plan.ts):
 * `<query>` + ORDER_BY_MARKER + `<filter>` + the comment's end answers `{_rid, orderByItems: [{item}], payload}` rows
 * (with the SDK's resume filter ANDed in); `<query>` + AGGREGATE_MARKER answers `[{"item": partial}]`
 * (AVG as `{sum, count}`, MIN/MAX as `{min}`/`{max}`); `<query>` + GROUP_MARKER answers partial groups
 * (group-by.ts). Any other query runs as it is (extended-query.ts).
 */
export function runSpec(spec: QuerySpec, docs: JsonObject[], maxItemCount: number, continuation?: string): QueryPage {
  const orderAt = spec.query.lastIndexOf(ORDER_BY_MARKER);
  if (orderAt >= 0 && spec.query.endsWith(')*/')) {
    const original = spec.query.slice(0, orderAt);
    const filter = spec.query.slice(orderAt + ORDER_BY_MARKER.length, -3);
    const lifted = liftClauses(original);
    const q = compile(spec.query, () => orderByQuery(lifted.core, filter));
    if (!lifted.distinct) return runQuery(spec, docs, maxItemCount, continuation, q);
    // Ordered DISTINCT: each range sends each payload once, at its first place in the order.
    const rows = runQuery(spec, docs, 0, undefined, q).results;
    return pageOf(
      distinctBy(rows, (r) => (isJsonObject(r) ? r.payload : undefined)),
      maxItemCount,
      continuation,
    );
  }
  if (spec.query.endsWith(AGGREGATE_MARKER))
    return aggregatePartial({ ...spec, query: spec.query.slice(0, -AGGREGATE_MARKER.length) }, docs);
  if (spec.query.endsWith(GROUP_MARKER)) {
    const sql = spec.query.slice(0, -GROUP_MARKER.length);
    const lifted = liftClauses(sql);
    const plan = planGroupQuery(sql, lifted.core, lifted.groupBy);
    return { results: groupPartials(plan, { ...spec, query: sql }, docs) };
  }
  return runItemQuery(spec, docs, maxItemCount, continuation);
}

function body(q: CompiledQuery): AstNode {
  const b = (q.ast as { body?: unknown }).body;
  if (!isNode(b) || b.type !== 'select_query') throw badRequest('Only SELECT queries can be planned.');
  return b;
}

const ident = (name: string): AstNode => ({ type: 'identifier', name });
const str = (value: string): AstNode => ({ type: 'string_constant', value });
const member = (object: AstNode, name: string): AstNode => ({
  type: 'scalar_member_expression',
  object,
  property: ident(name),
  computed: false,
});

function rootAlias(from: unknown): string {
  if (!isNode(from) || !isNode(from.source)) throw badRequest('An ORDER BY query needs a FROM clause.');
  const source = from.source;
  if (isNode(source.alias)) return String(source.alias.name);
  const collection = source.expression;
  if (
    isNode(collection) &&
    collection.type === 'collection_expression' &&
    isNode(collection.expression) &&
    collection.expression.type === 'identifier'
  ) {
    return String(collection.expression.name);
  }
  throw badRequest('The emulator plans ORDER BY only over FROM <alias> (optionally with JOINs).');
}

/** What the original SELECT would have answered for a row: the SDK shows `payload`. */
function payloadOf(select: AstNode, root: string): AstNode {
  if (isNode(select.value)) return select.value;
  if (select['*'] === true) return ident(root);
  const list = isNode(select.properties) && Array.isArray(select.properties.properties) ? select.properties.properties : [];
  const properties = list.map((p: unknown, i: number) => {
    const entry = p as { property?: unknown; alias?: unknown };
    const expr = isNode(entry.property) ? entry.property : ident(root);
    let name = `$${i + 1}`;
    if (isNode(entry.alias)) name = String(entry.alias.name);
    else if (expr.type === 'scalar_member_expression' && isNode(expr.property)) {
      if (expr.property.type === 'identifier') name = String(expr.property.name);
      else if (expr.property.type === 'string_constant') name = String(expr.property.value);
    }
    return { key: str(name), value: expr };
  });
  return { type: 'scalar_object_expression', properties };
}

function orderByQuery(original: string, filter: string): CompiledQuery {
  const q = engineQuery(original);
  const b = body(q);
  const root = rootAlias(b.from);
  const sorts = isNode(b.orderBy) && Array.isArray(b.orderBy.expressions) ? b.orderBy.expressions.filter(isNode) : [];
  const items: AstNode = {
    type: 'scalar_array_expression',
    elements: sorts.map((s) => ({ type: 'scalar_object_expression', properties: [{ key: str('item'), value: s.expression }] })),
  };
  const select = isNode(b.select) ? b.select : { type: 'select_specification', '*': true };
  b.select = {
    type: 'select_specification',
    properties: {
      type: 'object_property_list',
      properties: [
        { property: member(ident(root), '_rid'), alias: null },
        { property: items, alias: ident('orderByItems') },
        { property: payloadOf(select, root), alias: ident('payload') },
      ],
    },
  };
  if (filter.trim().toLowerCase() !== 'true') {
    const where = body(query(`SELECT * FROM ${root} WHERE ${filter}`)).where;
    const condition = isNode(where) ? where.condition : undefined;
    if (!isNode(condition)) throw badRequest(`The ORDER BY resume filter ${filter.slice(0, 200)} is not a condition.`);
    const current = isNode(b.where) ? b.where.condition : undefined;
    b.where = {
      type: 'filter_condition',
      condition: isNode(current) ? { type: 'scalar_binary_expression', left: current, operator: 'AND', right: condition } : condition,
    };
  }
  return q;
}

/** One range's partial aggregate, as `[{"item": …}]`; nothing when the range has no value (MIN of nothing). */
function aggregatePartial(spec: QuerySpec, docs: JsonObject[]): QueryPage {
  const q = compile(spec.query);
  const aggregate = valueAggregate(isNode(body(q).select) ? (body(q).select as AstNode) : { type: 'select_specification' });
  const single = (sql: string, fn?: string): JsonValue | undefined => {
    const compiled = fn ? compile(`${sql}\n/*${fn}*/`, () => renamed(sql, fn)) : compile(sql);
    return runQuery({ ...spec, query: sql }, docs, 0, undefined, compiled).results[0];
  };
  let item: JsonValue | undefined;
  if (aggregate?.name === 'AVG') {
    const sum = single(spec.query, 'SUM');
    const count = single(spec.query, 'COUNT');
    item = typeof count === 'number' && count > 0 && typeof sum === 'number' ? { sum, count } : undefined;
  } else if (aggregate?.name === 'MIN' || aggregate?.name === 'MAX') {
    // the SDK's MIN/MAX aggregators read `{min}` / `{max}` partials
    const value = single(spec.query);
    item = value === undefined ? undefined : { [aggregate.name.toLowerCase()]: value };
  } else {
    item = single(spec.query);
  }
  return { results: item === undefined ? [] : [[{ item }]] };
}

/** The same query with its VALUE aggregate renamed (AVG → SUM / COUNT). */
function renamed(sql: string, fn: string): CompiledQuery {
  const q = engineQuery(sql);
  const select = body(q).select;
  const call = isNode(select) ? valueAggregate(select)?.call : undefined;
  if (!call) throw badRequest('Not an aggregate query.');
  call.name = ident(fn);
  return q;
}
