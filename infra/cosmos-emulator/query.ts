import query, { SyntaxError as QuerySyntaxError } from '@zeit/cosmosdb-query';
import { CosmosError, badRequest, invalidContinuation } from './errors';
import { JsonObject, JsonValue, isJsonObject } from './types';
import { MAX_NESTING_DEPTH, nestingDepth } from './write-ops';
import { liftClauses } from './sql-text';
import { extensionFunctions, rewriteFunctions } from './sql-functions';

/**
 * Cosmos SQL through `@zeit/cosmosdb-query`, with IIF, LIKE and date functions added as its UDFs
 * (sql-functions.ts). DISTINCT, GROUP BY, OFFSET/LIMIT and SELECT-list aggregates are lifted out of the
 * text (sql-text.ts) and run by extended-query.ts; this module runs what the engine runs itself.
 * Compiled queries are cached by text. Paging uses the engine's own continuation tokens, which order by
 * `_rid`; they travel as `x-ms-continuation`.
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

export type CompiledQuery = ReturnType<typeof query>;
const cache = new Map<string, CompiledQuery>();
const CACHE_LIMIT = 256;

/** The engine's query for `sql` with the extension functions wired in; refuses clauses it would ignore. */
export function engineQuery(sql: string): CompiledQuery {
  const lifted = liftClauses(sql);
  if (lifted.distinct || lifted.groupBy.length > 0 || lifted.offset !== undefined) {
    throw badRequest('DISTINCT, GROUP BY and OFFSET/LIMIT are not supported here (only in item queries).');
  }
  const q = query(lifted.core);
  rewriteFunctions(q.ast);
  return q;
}

/** Compiles `sql` (or, given `build`, whatever it builds), cached under `sql`. */
export function compile(sql: string, build: () => CompiledQuery = () => engineQuery(sql)): CompiledQuery {
  let q = cache.get(sql);
  if (q) return q;
  try {
    q = build();
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

export function queryError(err: unknown, sql: string): Error {
  if (err instanceof CosmosError) return err;
  const detail = err instanceof Error ? err.message : String(err);
  const kind = err instanceof QuerySyntaxError ? 'Syntax error' : 'Query error';
  return badRequest(
    `${kind} in query "${sql.slice(0, 300)}": ${detail}. (The emulator's SQL engine is not the service's: see the Limitations of its README.)`,
  );
}

export function parseQuerySpec(body: Buffer): QuerySpec {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    throw badRequest('The query body is not valid JSON.');
  }
  if (!isJsonObject(parsed) || typeof parsed.query !== 'string')
    throw badRequest('The query body must be {"query": string, "parameters"?: [...]}.');
  if (nestingDepth(parsed, MAX_NESTING_DEPTH + 4) > MAX_NESTING_DEPTH + 4)
    throw badRequest(`Query parameters nest deeper than ${MAX_NESTING_DEPTH} levels.`);
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

/** Runs `spec` (compiled as `q`, by default from its text) over `docs` and returns one page. */
export function runQuery(
  spec: QuerySpec,
  docs: JsonObject[],
  maxItemCount: number,
  continuation?: string,
  q: CompiledQuery = compile(spec.query),
): QueryPage {
  if (continuation !== undefined && !/^\+RID:[^#]*#RT:\d+/.test(continuation)) {
    throw invalidContinuation(continuation);
  }
  let out: { result: JsonValue[]; continuation?: { token: string } | null };
  try {
    out = q.exec(docs, {
      parameters: spec.parameters,
      udf: extensionFunctions(Date.now()),
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
