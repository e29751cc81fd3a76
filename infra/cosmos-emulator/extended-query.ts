import { canonical } from './aggregates';
import { badRequest, invalidContinuation } from './errors';
import { groupResults, hasAggregate, planGroupQuery } from './group-by';
import { AstNode, isNode, topValue, valueAggregate } from './query-plan';
import { QueryPage, QuerySpec, compile, engineQuery, runQuery } from './query';
import { LiftedQuery, liftClauses } from './sql-text';
import { JsonObject, JsonValue } from './types';

/**
 * A query answered whole (one logical partition, or across partitions without a plan) that needs more
 * than the engine: DISTINCT, GROUP BY, SELECT-list aggregates, MakeList/MakeSet, OFFSET/LIMIT. The
 * engine produces the rows (ordered, unpaged), then in the service's order: group, DISTINCT, TOP,
 * OFFSET/LIMIT; pages are slices of that answer with continuation `+EXT:<next index>`.
 */
const TOKEN = /^\+EXT:(\d+)$/;

export function runItemQuery(spec: QuerySpec, docs: JsonObject[], maxItemCount: number, continuation?: string): QueryPage {
  const lifted = liftClauses(spec.query);
  const grouped = isGrouped(lifted);
  if (!grouped && !lifted.distinct && lifted.offset === undefined) return runQuery(spec, docs, maxItemCount, continuation);
  let rows: JsonValue[];
  let top: number | null = null;
  if (grouped) {
    const plan = planGroupQuery(spec.query, lifted.core, lifted.groupBy);
    if (plan.hasOrderBy) throw badRequest('The emulator does not run ORDER BY together with GROUP BY or SELECT-list aggregates.');
    rows = groupResults(plan, spec, docs);
    top = plan.top ? topValue(plan.top, spec) : null;
  } else {
    const q = compile(`${spec.query}\n/*rows without top*/`, () => engineQuery(lifted.coreWithoutTop));
    rows = runQuery(spec, docs, 0, undefined, q).results;
    if (lifted.hasTop) top = topValue(topNode(lifted.core), spec);
  }
  if (lifted.distinct) rows = distinctBy(rows, (r) => r);
  if (top !== null) rows = rows.slice(0, top);
  const window = offsetLimit(lifted, spec);
  if (window) rows = rows.slice(window.offset, window.offset + window.limit);
  return pageOf(rows, maxItemCount, continuation);
}

/** A page of a whole answer: the rows from the continuation's index (`+EXT:<index>`) on. */
export function pageOf(rows: JsonValue[], maxItemCount: number, continuation?: string): QueryPage {
  let start = 0;
  if (continuation !== undefined) {
    const m = TOKEN.exec(continuation);
    if (!m) throw invalidContinuation(continuation);
    start = Number(m[1]);
  }
  const page = rows.slice(start, start + maxItemCount);
  const next = start + page.length;
  return { results: page, continuation: next < rows.length ? `+EXT:${next}` : undefined };
}

/** Whether `sql` needs the grouping engine: GROUP BY, or aggregates beyond one engine VALUE aggregate. */
export function isGrouped(lifted: LiftedQuery): boolean {
  if (lifted.groupBy.length > 0) return true;
  const body = compile(lifted.core).ast.body;
  const select = isNode(body) && isNode(body.select) ? body.select : undefined;
  return select !== undefined && hasAggregate(select) && !valueAggregate(select);
}

function topNode(core: string): AstNode | undefined {
  const body = compile(core).ast.body;
  return isNode(body) && isNode(body.top) ? body.top : undefined;
}

/** The rows whose `key` was not seen before, in order (DISTINCT compares values, not key order). */
export function distinctBy(rows: JsonValue[], key: (row: JsonValue) => JsonValue | undefined): JsonValue[] {
  const seen = new Set<string>();
  return rows.filter((r) => {
    const k = canonical(key(r));
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

function count(text: string, spec: QuerySpec, what: string): number {
  const value = text.startsWith('@') ? spec.parameters.find((p) => p.name === text)?.value : Number(text);
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0)
    throw badRequest(`The ${what} count must be a non-negative integer; got ${text}.`);
  return value;
}

/** OFFSET/LIMIT as numbers (literals or parameters), if the query has them. */
export function offsetLimit(lifted: LiftedQuery, spec: QuerySpec): { offset: number; limit: number } | undefined {
  if (lifted.offset === undefined || lifted.limit === undefined) return undefined;
  if (lifted.hasTop) throw badRequest('A query cannot have both TOP and OFFSET/LIMIT.');
  return { offset: count(lifted.offset, spec, 'OFFSET'), limit: count(lifted.limit, spec, 'LIMIT') };
}
