import query, { SyntaxError as QuerySyntaxError } from '@zeit/cosmosdb-query';
import { badRequest } from './errors';
import { JsonObject, JsonValue, isJsonObject } from './types';

/**
 * Cosmos SQL through `@zeit/cosmosdb-query` (no OFFSET/LIMIT, GROUP BY, DISTINCT, LIKE, IIF or date
 * functions). Compiled queries are cached by text. Paging uses the engine's own continuation tokens,
 * which order by `_rid`; they travel as `x-ms-continuation`.
 */
export interface QueryParameter {
  name: string;
  value: JsonValue;
}

export interface QuerySpec {
  query: string;
  parameters: QueryParameter[];
}

export interface QueryPage {
  results: JsonValue[];
  continuation?: string;
}

type CompiledQuery = ReturnType<typeof query>;
const cache = new Map<string, CompiledQuery>();
const CACHE_LIMIT = 256;

function compile(sql: string): CompiledQuery {
  let q = cache.get(sql);
  if (q) return q;
  try {
    q = query(sql);
    // Generating the code surfaces semantic errors now rather than mid-execution.
    void q.code;
  } catch (err) {
    throw queryError(err, sql);
  }
  if (cache.size >= CACHE_LIMIT) {
    const first = cache.keys().next();
    if (!first.done) cache.delete(first.value);
  }
  cache.set(sql, q);
  return q;
}

function queryError(err: unknown, sql: string): Error {
  const detail = err instanceof Error ? err.message : String(err);
  const kind = err instanceof QuerySyntaxError ? 'Syntax error' : 'Query error';
  return badRequest(`${kind} in query "${sql.slice(0, 300)}": ${detail}. (The emulator's SQL engine lacks OFFSET/LIMIT, GROUP BY, DISTINCT, LIKE, IIF and date functions.)`);
}

export function parseQuerySpec(body: Buffer): QuerySpec {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    throw badRequest('The query body is not valid JSON.');
  }
  if (!isJsonObject(parsed) || typeof parsed.query !== 'string') throw badRequest('The query body must be {"query": string, "parameters"?: [...]}.');
  const params = parsed.parameters ?? [];
  if (!Array.isArray(params)) throw badRequest('Query parameters must be an array of {name, value}.');
  const parameters = params.map((p, i) => {
    if (!isJsonObject(p) || typeof p.name !== 'string' || !p.name.startsWith('@')) {
      throw badRequest(`Query parameter ${i} must be {name: "@…", value}.`);
    }
    return { name: p.name, value: p.value === undefined ? null : p.value };
  });
  return { query: parsed.query, parameters };
}

/** Runs `spec` over `docs` and returns one page. */
export function runQuery(spec: QuerySpec, docs: JsonObject[], maxItemCount: number, continuation?: string): QueryPage {
  const q = compile(spec.query);
  if (continuation !== undefined && !/^\+RID:[^#]*#RT:\d+/.test(continuation)) {
    throw badRequest(`The continuation token ${continuation.slice(0, 100)} is not one this emulator issued.`);
  }
  let out: { result: JsonValue[]; continuation?: { token: string } | null };
  try {
    out = q.exec(docs, {
      parameters: spec.parameters,
      maxItemCount,
      continuation: continuation ? { token: continuation } : undefined,
    });
  } catch (err) {
    throw queryError(err, spec.query);
  }
  return { results: out.result, continuation: out.continuation?.token };
}

/** Whether `sql` (a `SELECT * FROM c WHERE …`) selects `doc`. */
export function queryMatches(sql: string, doc: JsonObject): boolean {
  return runQuery({ query: sql, parameters: [] }, [doc], 0).results.length > 0;
}

/**
 * The query plan answer: the emulator runs cross-partition queries itself, so the SDK never needs a
 * real plan; this minimal one says "nothing to do client-side, all ranges".
 */
export const MINIMAL_QUERY_PLAN = JSON.stringify({
  partitionedQueryExecutionInfoVersion: 2,
  queryInfo: {
    distinctType: 'None',
    top: null,
    offset: null,
    limit: null,
    orderBy: [],
    orderByExpressions: [],
    groupByExpressions: [],
    groupByAliases: [],
    aggregates: [],
    groupByAliasToAggregateType: {},
    rewrittenQuery: '',
    hasSelectValue: false,
    hasNonStreamingOrderBy: false,
  },
  queryRanges: [{ min: '', max: 'FF', isMinInclusive: true, isMaxInclusive: false }],
});
