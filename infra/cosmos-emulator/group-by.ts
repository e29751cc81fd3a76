import query from '@zeit/cosmosdb-query';
import { AGGREGATE_TYPES, Accumulator, AggregateType, canonical } from './aggregates';
import { badRequest } from './errors';
import { AstNode, isNode } from './query-plan';
import { CompiledQuery, QuerySpec, queryError, runQuery } from './query';
import { rewriteFunctions } from './sql-functions';
import { JsonObject, JsonValue, isJsonObject } from './types';

/**
 * GROUP BY and aggregates the engine cannot run itself (aggregates in a SELECT list, MakeList, MakeSet):
 * the engine evaluates, per row after FROM/JOIN/WHERE, an object of the group keys and the aggregates'
 * arguments (`{k0, k1, a0, …}`); this module groups those rows and aggregates them. SELECT items must
 * each be a GROUP BY expression or one aggregate call, as the service requires.
 */
export type GroupItem = { name: string; key: number } | { name: string; aggregate: AggregateType; arg: number };

export interface GroupQuery {
  keyTexts: string[];
  items: GroupItem[];
  /** SELECT VALUE: one item, rows are its values. */
  value: boolean;
  rows: CompiledQuery;
  /** TOP, applied after grouping (null: none). */
  top: AstNode | null;
  hasOrderBy: boolean;
}

const fnName = (n: AstNode): string => (isNode(n.name) ? String(n.name.name).toUpperCase() : '');

export function aggregateType(e: AstNode): AggregateType | undefined {
  return e.type === 'scalar_function_expression' && e.udf !== true ? AGGREGATE_TYPES[fnName(e)] : undefined;
}

/** Whether an aggregate appears in `v` outside subqueries. */
export function hasAggregate(v: unknown): boolean {
  if (Array.isArray(v)) return v.some(hasAggregate);
  if (!isNode(v)) return typeof v === 'object' && v !== null && Object.values(v).some(hasAggregate);
  if (v.type === 'select_query') return false;
  return aggregateType(v) !== undefined || Object.values(v).some(hasAggregate);
}

function expression(text: string): AstNode {
  let parsed: unknown;
  try {
    parsed = query(`SELECT VALUE ${text} FROM root`).ast;
  } catch (err) {
    throw badRequest(`The GROUP BY expression "${text.slice(0, 200)}" is not valid: ${err instanceof Error ? err.message : String(err)}`);
  }
  rewriteFunctions(parsed);
  const body = isNode(parsed) && isNode(parsed.body) ? parsed.body : undefined;
  const select = body && isNode(body.select) ? body.select : undefined;
  if (!select || !isNode(select.value)) throw badRequest(`The GROUP BY expression "${text.slice(0, 200)}" is not valid.`);
  return select.value;
}

const same = (a: AstNode, b: AstNode): boolean => canonical(a as unknown as JsonValue) === canonical(b as unknown as JsonValue);

function propertyName(e: AstNode): string | undefined {
  if (e.type !== 'scalar_member_expression' || !isNode(e.property)) return undefined;
  if (e.property.type === 'identifier') return String(e.property.name);
  if (e.property.type === 'string_constant') return String(e.property.value);
  return undefined;
}

const plans = new Map<string, GroupQuery>();

/** Plans `core` (the query with GROUP BY lifted out) grouped by `keyTexts`; cached by the query text. */
export function planGroupQuery(sql: string, core: string, keyTexts: string[]): GroupQuery {
  const cached = plans.get(sql);
  if (cached) return cached;
  let plan: GroupQuery;
  try {
    plan = buildGroupQuery(core, keyTexts);
    void plan.rows.code; // generating the code surfaces semantic errors now
  } catch (err) {
    throw queryError(err, sql);
  }
  if (plans.size >= 256) plans.clear();
  plans.set(sql, plan);
  return plan;
}

function buildGroupQuery(core: string, keyTexts: string[]): GroupQuery {
  const keys = keyTexts.map(expression);
  const args: AstNode[] = [];
  const items: GroupItem[] = [];
  let unnamed = 0;
  const q = query(core);
  rewriteFunctions(q.ast);
  const body = isNode(q.ast.body) ? q.ast.body : undefined;
  if (!body || body.type !== 'select_query') throw badRequest('Only SELECT queries can group.');
  const select = isNode(body.select) ? body.select : undefined;
  if (!select || select['*'] === true)
    throw badRequest('A GROUP BY or aggregate query cannot SELECT *; name the GROUP BY expressions and aggregates.');
  const entries: Array<{ expr: AstNode; alias?: string }> = isNode(select.value)
    ? [{ expr: select.value }]
    : (isNode(select.properties) && Array.isArray(select.properties.properties) ? select.properties.properties : []).map((p: unknown) => {
        const entry = p as { property?: unknown; alias?: unknown };
        return {
          expr: isNode(entry.property) ? entry.property : { type: '?' },
          alias: isNode(entry.alias) ? String(entry.alias.name) : undefined,
        };
      });
  for (const { expr, alias } of entries) {
    const type = aggregateType(expr);
    const arg = Array.isArray(expr.arguments) && isNode(expr.arguments[0]) ? expr.arguments[0] : undefined;
    if (type && arg && !hasAggregate(arg)) {
      args.push(arg);
      items.push({ name: alias ?? `$${++unnamed}`, aggregate: type, arg: args.length - 1 });
      continue;
    }
    const key = keys.findIndex((k) => same(k, expr));
    if (key < 0) {
      throw badRequest(
        'Each SELECT item of a GROUP BY or aggregate query must be one of the GROUP BY expressions or one aggregate (COUNT, SUM, MIN, MAX, AVG, MakeList, MakeSet) over an expression without aggregates.',
      );
    }
    items.push({ name: alias ?? propertyName(expr) ?? `$${++unnamed}`, key });
  }
  const property = (name: string, value: AstNode): unknown => ({ key: { type: 'identifier', name }, value });
  body.select = {
    type: 'select_specification',
    value: {
      type: 'scalar_object_expression',
      properties: [...keys.map((k, i) => property(`k${i}`, k)), ...args.map((a, i) => property(`a${i}`, a))],
    },
  };
  const top = isNode(body.top) ? body.top : null;
  const hasOrderBy = isNode(body.orderBy);
  body.top = null;
  return { keyTexts, items, value: isNode(select.value), rows: q, top, hasOrderBy };
}

interface Group {
  keys: Array<JsonValue | undefined>;
  accumulators: Accumulator[];
}

/** Runs the grouped query over `docs`: groups in first-seen order, each with its accumulators. */
function group(plan: GroupQuery, spec: QuerySpec, docs: JsonObject[]): Group[] {
  const rows = runQuery(spec, docs, 0, undefined, plan.rows).results;
  const groups = new Map<string, Group>();
  const aggregates = plan.items.filter((i): i is Extract<GroupItem, { aggregate: AggregateType }> => 'aggregate' in i);
  // With no GROUP BY the whole input is one group, even when it is empty (COUNT answers 0).
  if (plan.keyTexts.length === 0) groups.set('', { keys: [], accumulators: aggregates.map((a) => new Accumulator(a.aggregate)) });
  for (const row of rows) {
    if (!isJsonObject(row)) continue;
    const keys = plan.keyTexts.map((_, i) => row[`k${i}`]);
    const id = keys.map(canonical).join('|');
    let g = groups.get(id);
    if (!g) {
      g = { keys, accumulators: aggregates.map((a) => new Accumulator(a.aggregate)) };
      groups.set(id, g);
    }
    aggregates.forEach((a, i) => g.accumulators[i].add(row[`a${a.arg}`]));
  }
  return [...groups.values()];
}

function itemValue(plan: GroupQuery, g: Group, item: GroupItem, partial: boolean): JsonValue | undefined {
  if ('key' in item) return g.keys[item.key];
  const acc = g.accumulators[plan.items.filter((i) => 'aggregate' in i).indexOf(item)];
  return partial ? acc.partial() : acc.result();
}

/** The grouped answer, computed whole. */
export function groupResults(plan: GroupQuery, spec: QuerySpec, docs: JsonObject[]): JsonValue[] {
  const out: JsonValue[] = [];
  for (const g of group(plan, spec, docs)) {
    if (plan.value) {
      const v = itemValue(plan, g, plan.items[0], false);
      if (v !== undefined) out.push(v);
      continue;
    }
    const row: JsonObject = {};
    for (const item of plan.items) {
      const v = itemValue(plan, g, item, false);
      if (v !== undefined) row[item.name] = v;
    }
    out.push(row);
  }
  return out;
}

/**
 * One range's rows under a query plan, as the SDK's group-by pipeline reads them:
 * `{groupByItems: [{item}], payload: {name: {item: partial} | key value}}`, or for SELECT VALUE
 * `payload: [{item: partial}]` (an aggregate) or the key value; without GROUP BY, VALUE rows are
 * `[{item: partial}]` and a range with nothing to add answers nothing.
 */
export function groupPartials(plan: GroupQuery, spec: QuerySpec, docs: JsonObject[]): JsonValue[] {
  const out: JsonValue[] = [];
  for (const g of group(plan, spec, docs)) {
    const groupByItems: JsonValue[] = g.keys.map((k): JsonValue => (k === undefined ? {} : { item: k }));
    const wrap = (item: GroupItem): JsonValue | undefined => {
      const v = itemValue(plan, g, item, true);
      return 'aggregate' in item ? (v === undefined ? {} : { item: v }) : v;
    };
    if (plan.value) {
      const item = plan.items[0];
      const v = wrap(item);
      if (plan.keyTexts.length === 0) {
        if ('aggregate' in item && itemValue(plan, g, item, true) !== undefined) out.push([v ?? {}]);
        continue;
      }
      const payload: JsonValue | undefined = 'aggregate' in item ? [v ?? {}] : v;
      out.push(payload === undefined ? { groupByItems } : { groupByItems, payload });
      continue;
    }
    const payload: JsonObject = {};
    for (const item of plan.items) {
      const v = wrap(item);
      if (v !== undefined) payload[item.name] = v;
    }
    out.push({ groupByItems, payload });
  }
  return out;
}
