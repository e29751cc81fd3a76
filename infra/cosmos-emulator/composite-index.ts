import query from '@zeit/cosmosdb-query';
import { badRequest } from './errors';
import { AstNode, ORDER_BY_MARKER, isNode, valueAggregate } from './query-plan';
import { liftClauses } from './sql-text';
import { JsonObject, isJsonObject } from './types';

/**
 * The service serves an ORDER BY on several properties from a composite index only: the container's
 * policy must list one with the same paths in the same order, with every direction as the query's or
 * every one inverted; otherwise the query fails with 400. (An aggregate's ORDER BY is not served from
 * an index and is not checked.) Expressions the emulator cannot turn into a path are let through.
 */
const MISSING = 'The order by query does not have a corresponding composite index that it can be served from.';

/** `c.a.b` → `/a/b`, `c["x y"]` → `/x y`; undefined for anything else. */
function pathOf(e: AstNode, alias: string): string | undefined {
  const segments: string[] = [];
  let at: AstNode = e;
  while (at.type === 'scalar_member_expression') {
    const p = isNode(at.property) ? at.property : undefined;
    if (p?.type === 'identifier' && !at.computed) segments.unshift(String(p.name));
    else if (p?.type === 'string_constant') segments.unshift(String(p.value));
    else return undefined;
    if (!isNode(at.object)) return undefined;
    at = at.object;
  }
  return at.type === 'identifier' && at.name === alias && segments.length > 0 ? `/${segments.join('/')}` : undefined;
}

const unquote = (path: string): string => path.replace(/"/g, '');

function matches(index: unknown, paths: string[], descending: boolean[]): boolean {
  if (!Array.isArray(index) || index.length !== paths.length) return false;
  const entries = index.filter(isJsonObject);
  if (entries.length !== paths.length) return false;
  if (!entries.every((entry, i) => typeof entry.path === 'string' && unquote(entry.path) === paths[i])) return false;
  const flipped = entries.map((entry, i) => (String(entry.order ?? 'ascending').toLowerCase() === 'descending') !== descending[i]);
  return flipped.every((f) => f === flipped[0]);
}

export function assertOrderByServable(sql: string, policy: JsonObject): void {
  const markerAt = sql.lastIndexOf(ORDER_BY_MARKER);
  const text = markerAt >= 0 ? sql.slice(0, markerAt) : sql;
  if (!/order\s+by/i.test(text)) return;
  let body: unknown;
  try {
    body = query(liftClauses(text).core).ast.body;
  } catch {
    return; // the engine reports the syntax error
  }
  if (!isNode(body) || !isNode(body.orderBy) || !Array.isArray(body.orderBy.expressions)) return;
  const sorts = body.orderBy.expressions.filter(isNode);
  if (sorts.length < 2) return;
  if (isNode(body.select) && valueAggregate(body.select)) return;
  const source = isNode(body.from) && isNode(body.from.source) ? body.from.source : undefined;
  const collection = isNode(source?.expression) ? source.expression : undefined;
  const root = collection?.type === 'collection_expression' && isNode(collection.expression) ? collection.expression : collection;
  const alias = isNode(source?.alias) ? String(source.alias.name) : String(root?.name ?? '');
  const paths = sorts.map((s) => (isNode(s.expression) ? pathOf(s.expression, alias) : undefined));
  if (paths.some((p) => p === undefined)) return;
  const descending = sorts.map((s) => String(s.order ?? 'ASC').toUpperCase() === 'DESC');
  const composites = Array.isArray(policy.compositeIndexes) ? policy.compositeIndexes : [];
  if (!composites.some((index) => matches(index, paths as string[], descending))) throw badRequest(MISSING);
}
