import { assertOrderByServable } from './composite-index';
import { ContainerState } from './container';
import { containerHeaders, feedBody, jsonResponse, sessionTokens } from './respond';
import { QuerySpec, parseQuerySpec, runQuery } from './query';
import { buildQueryPlan } from './query-plan';
import { runSpec } from './planned-query';
import { queryMetricsHeader, wantsQueryMetrics } from './query-metrics';
import { END_OF_PARTITION, fullPageContinues, isEndOfPartition } from './page-end';
import { partitionKeyRangeResource } from './resources';
import { queryUnits } from './request-charge';
import { H, maxItemCount, resolveScope } from './scope';
import { EmulatorRequest, EmulatorResponse, JsonObject } from './types';

/** Queries, read feeds (GET without A-IM), the query plan and /pkranges. */
export function isQueryRequest(req: EmulatorRequest): boolean {
  const isQuery = req.headers['x-ms-documentdb-isquery'];
  const contentType = req.headers['content-type'] ?? '';
  return (isQuery !== undefined && isQuery.toLowerCase() === 'true') || contentType.toLowerCase().startsWith('application/query+json');
}

export function isQueryPlanRequest(req: EmulatorRequest): boolean {
  const v = req.headers['x-ms-cosmos-is-query-plan-request'];
  return v !== undefined && v.toLowerCase() === 'true';
}

/** The query plan for the query in the body (see query-plan.ts); 400 for what the emulator cannot plan. */
export function queryPlan(req: EmulatorRequest): EmulatorResponse {
  // the gateway plans without touching data; charged nothing (assumption, see README)
  return { ...jsonResponse(200, JSON.stringify(buildQueryPlan(parseQuerySpec(req.body)))), charge: 0 };
}

/** Runs a query (or, with `spec` omitted, a read feed) over the documents the request scopes to. */
export function queryDocuments(container: ContainerState, req: EmulatorRequest, spec?: QuerySpec): EmulatorResponse {
  const started = process.hrtime.bigint();
  const scope = resolveScope(container, req);
  const continuation = req.headers[H.continuation];
  const ended = isEndOfPartition(continuation);
  const stored = ended ? [] : container.docsInScope(scope, req.receivedAt);
  const page = ended
    ? { results: [] }
    : runSpec(
        spec ?? { query: 'SELECT * FROM root', parameters: [] },
        stored.map((d) => d.body),
        maxItemCount(req),
        continuation,
      );
  if (!page.continuation && fullPageContinues(container, req, spec?.query, page.results.length)) page.continuation = END_OF_PARTITION;
  const items = page.results.map((r) => JSON.stringify(r));
  const headers: Record<string, string> = {
    ...containerHeaders(container),
    'x-ms-item-count': String(page.results.length),
    'x-ms-session-token': sessionTokens(container, container.lsn),
  };
  if (page.continuation) headers[H.continuation] = page.continuation;
  if (spec && wantsQueryMetrics(req.headers)) {
    headers['x-ms-documentdb-query-metrics'] = queryMetricsHeader({
      retrievedDocumentCount: stored.length,
      retrievedDocumentSize: stored.reduce((n, d) => n + Buffer.byteLength(d.json), 0),
      outputDocumentCount: items.length,
      outputDocumentSize: items.reduce((n, j) => n + Buffer.byteLength(j), 0),
      elapsedMs: Number(process.hrtime.bigint() - started) / 1e6,
    });
  }
  const charge = queryUnits(
    stored.length,
    items.map((j) => Buffer.byteLength(j)),
  );
  return { ...jsonResponse(200, feedBody(container.rid, 'Documents', items), headers), charge };
}

export function queryFromBody(container: ContainerState, req: EmulatorRequest): EmulatorResponse {
  const spec = parseQuerySpec(req.body);
  assertOrderByServable(spec.query, container.meta.indexingPolicy);
  return queryDocuments(container, req, spec);
}

export function partitionKeyRanges(container: ContainerState): EmulatorResponse {
  const ranges = container.liveRanges().map((r) => JSON.stringify(partitionKeyRangeResource(container, r)));
  return jsonResponse(200, feedBody(container.rid, 'PartitionKeyRanges', ranges), {
    ...containerHeaders(container),
    'x-ms-item-count': String(ranges.length),
    etag: `"${container.lsn}"`,
  });
}

/** Lists of metadata resources (databases, containers), optionally through a query. */
export function resourceFeed(req: EmulatorRequest, rid: string, listName: string, resources: JsonObject[]): EmulatorResponse {
  const spec = req.method === 'POST' ? parseQuerySpec(req.body) : { query: 'SELECT * FROM root', parameters: [] };
  const page = runQuery(spec, resources, maxItemCount(req), req.headers[H.continuation]);
  const headers: Record<string, string> = { 'x-ms-item-count': String(page.results.length) };
  if (page.continuation) headers[H.continuation] = page.continuation;
  return jsonResponse(
    200,
    feedBody(
      rid,
      listName,
      page.results.map((r) => JSON.stringify(r)),
    ),
    headers,
  );
}
