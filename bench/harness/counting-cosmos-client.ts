/**
 * A Cosmos client for the harness's own traffic (frontend writes, reading results) that counts its
 * requests and the request units they were charged, by the emulator's kinds, so the emulator's counters
 * minus these are what the system under test sent and cost.
 */
import { CosmosClient } from '@azure/cosmos';
import { createDefaultHttpClient, type HttpClient, type PipelineRequest } from '@azure/core-rest-pipeline';
import type { RequestUnitSnapshot } from '@opstream/cosmos-emulator';

export type RequestUnitKind = keyof RequestUnitSnapshot;

export interface CountingClient {
  readonly client: CosmosClient;
  requests(): number;
  /** Request units charged to the harness so far, by the emulator's kinds (and `total`). */
  requestUnits(): Record<RequestUnitKind, number>;
  /** The same by container (`-` for account and database requests), as the emulator's `byContainer`. */
  requestUnitsByContainer(): Record<string, Partial<Record<RequestUnitKind, number>>>;
  /** Requests sent so far by container and kind, as the emulator's `byContainer[c].requests`. */
  requestsByContainer(): Record<string, Partial<Record<RequestUnitKind, number>>>;
}

function containerOf(request: PipelineRequest): string {
  const path = new URL(request.url).pathname.split('/').filter((s) => s !== '');
  return path[2] === 'colls' && path[3] ? decodeURIComponent(path[3]) : '-';
}

/** The emulator's kind of a request (infra/cosmos-emulator/router.ts), from what the client sends. */
function kindOf(request: PipelineRequest, status: number): RequestUnitKind {
  const path = new URL(request.url).pathname.split('/').filter((s) => s !== '');
  const h = (name: string): string => (request.headers.get(name) ?? '').toLowerCase();
  if (path[4] === 'pkranges') return 'pkranges';
  if (path[4] !== 'docs') return 'metadata';
  if (path.length === 6) return request.method === 'GET' ? 'pointRead' : 'write';
  if (h('a-im') === 'incremental feed') return status === 200 ? 'changeFeed200' : status === 304 ? 'changeFeed304' : 'changeFeedOther';
  if (request.method === 'GET') return 'readFeed';
  if (h('x-ms-cosmos-is-query-plan-request') === 'true') return 'queryPlan';
  if (h('x-ms-cosmos-is-batch-request') === 'true') return 'batch';
  if (h('x-ms-documentdb-isquery') === 'true' || h('content-type').startsWith('application/query+json')) return 'query';
  return 'write';
}

export function countingCosmosClient(endpoint: string, key: string): CountingClient {
  const inner = createDefaultHttpClient();
  let count = 0;
  const units = {} as Record<RequestUnitKind, number>;
  const byContainer: Record<string, Partial<Record<RequestUnitKind, number>>> = {};
  const requestsByContainer: Record<string, Partial<Record<RequestUnitKind, number>>> = {};
  const httpClient: HttpClient = {
    sendRequest: async (request) => {
      count++;
      const response = await inner.sendRequest(request);
      const sent = (requestsByContainer[containerOf(request)] ??= {});
      const sentKind = kindOf(request, response.status);
      sent[sentKind] = (sent[sentKind] ?? 0) + 1;
      const charge = Number(response.headers.get('x-ms-request-charge') ?? 0);
      if (Number.isFinite(charge) && charge > 0) {
        const kind = kindOf(request, response.status);
        units[kind] = (units[kind] ?? 0) + charge;
        units.total = (units.total ?? 0) + charge;
        const mine = (byContainer[containerOf(request)] ??= {});
        mine[kind] = (mine[kind] ?? 0) + charge;
        mine.total = (mine.total ?? 0) + charge;
      }
      return response;
    },
  };
  const client = new CosmosClient({
    endpoint,
    key,
    httpClient,
    connectionPolicy: {
      enableEndpointDiscovery: false,
      enableBackgroundEndpointRefreshing: false,
      enablePartitionLevelFailover: false,
      enablePartitionLevelCircuitBreaker: false,
      requestTimeout: 30_000,
      retryOptions: { maxRetryAttemptCount: 9, fixedRetryIntervalInMilliseconds: 0, maxWaitTimeInSeconds: 30 },
    },
  });
  return {
    client,
    requests: () => count,
    requestUnits: () => ({ ...units }),
    requestUnitsByContainer: () => structuredClone(byContainer),
    requestsByContainer: () => structuredClone(requestsByContainer),
  };
}
