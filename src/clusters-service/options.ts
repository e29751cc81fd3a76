/** Options of the Clusters Service client, with one DEFAULTS constant and fix-it validation. */
import type { Logger } from '../logging/logger';
import { DEFAULT_BACKOFF, type BackoffPolicy } from '../util/backoff';

/** One HTTP attempt, reported to `onCall` (metrics). */
export interface ClustersServiceCallEvent {
  /** `METHOD /template`, e.g. `GET /clusters/{id}/status`. */
  readonly endpoint: string;
  /** HTTP status, or what happened instead of an answer. */
  readonly status: number | 'timeout' | 'connection-error';
  readonly durationMs: number;
  /** 0 for the first attempt. */
  readonly attempt: number;
}

export interface ClustersServiceClientOptions {
  /** Where CS listens, e.g. `http://127.0.0.1:8000`; the `/api/aro_hcp/v1alpha1` prefix is added. */
  baseUrl: string;
  /**
   * Bearer token, or a function returning one (called per attempt, so a rotated token is picked up).
   * Sent as `Authorization: Bearer …`; never logged or put in an error.
   */
  token?: string | (() => string | Promise<string>);
  /** Timeout of one HTTP attempt. @defaultValue 10_000 */
  requestTimeoutMs?: number;
  /**
   * Retry policy of idempotent calls (GET, DELETE) on retriable failures (5xx, 429, timeouts,
   * connection errors); `Retry-After` is honoured up to `retry.maxDelayMs`: a longer one ends the retries here and
   * the error (retriable, its `retryAfterMs` the wait asked) is thrown, so no caller is held for it. POST and
   * PATCH are never retried here.
   * @defaultValue DEFAULT_BACKOFF with 3 retries
   */
  retry?: Partial<BackoffPolicy>;
  /** Page size when paging through lists. @defaultValue 100 */
  pageSize?: number;
  /**
   * Most bytes read of one answer; a longer one fails the call (ClustersServiceBadResponseError
   * naming the limit) instead of being buffered. Far above any real answer (a page of 100 clusters
   * is well under 1 MiB). @defaultValue 4 MiB
   */
  maxResponseBytes?: number;
  /** Called after every HTTP attempt (endpoint, status, duration): the ops server counts these. */
  onCall?: (event: ClustersServiceCallEvent) => void;
  /** Retries and failures are logged here. @defaultValue a silent logger */
  logger?: Logger;
  /** The fetch to use. @defaultValue globalThis.fetch (undici, keep-alive connections) */
  fetch?: typeof fetch;
}

export const CLUSTERS_SERVICE_DEFAULTS = Object.freeze({
  requestTimeoutMs: 10_000,
  retry: Object.freeze({ ...DEFAULT_BACKOFF, retries: 3 }) as Readonly<BackoffPolicy>,
  pageSize: 100,
  maxResponseBytes: 4 * 1024 * 1024,
});

export class ClustersServiceOptionsError extends Error {
  override readonly name = 'ClustersServiceOptionsError';
}

export interface ResolvedClustersServiceOptions {
  readonly baseUrl: string;
  readonly token?: ClustersServiceClientOptions['token'];
  readonly requestTimeoutMs: number;
  readonly retry: BackoffPolicy;
  readonly pageSize: number;
  readonly maxResponseBytes: number;
  readonly onCall?: ClustersServiceClientOptions['onCall'];
  readonly logger?: Logger;
  readonly fetch: typeof fetch;
}

/** Applies defaults and rejects bad values with a message that says how to fix them. */
export function resolveOptions(options: ClustersServiceClientOptions): ResolvedClustersServiceOptions {
  let url: URL;
  try {
    url = new URL(options.baseUrl);
  } catch {
    throw new ClustersServiceOptionsError(
      `baseUrl must be an absolute http(s) URL such as http://127.0.0.1:8000, got ${JSON.stringify(options.baseUrl)}`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ClustersServiceOptionsError(`baseUrl must use http or https, got ${url.protocol}`);
  }
  const requestTimeoutMs = options.requestTimeoutMs ?? CLUSTERS_SERVICE_DEFAULTS.requestTimeoutMs;
  if (!Number.isFinite(requestTimeoutMs) || requestTimeoutMs <= 0) {
    throw new ClustersServiceOptionsError(`requestTimeoutMs must be a positive number of milliseconds, got ${requestTimeoutMs}`);
  }
  const pageSize = options.pageSize ?? CLUSTERS_SERVICE_DEFAULTS.pageSize;
  if (!Number.isInteger(pageSize) || pageSize < 1)
    throw new ClustersServiceOptionsError(`pageSize must be a whole number >= 1, got ${pageSize}`);
  const maxResponseBytes = options.maxResponseBytes ?? CLUSTERS_SERVICE_DEFAULTS.maxResponseBytes;
  if (!Number.isInteger(maxResponseBytes) || maxResponseBytes < 1) {
    throw new ClustersServiceOptionsError(`maxResponseBytes must be a whole number of bytes >= 1, got ${maxResponseBytes}`);
  }
  const retry: BackoffPolicy = { ...CLUSTERS_SERVICE_DEFAULTS.retry, ...(options.retry ?? {}) };
  if (!(retry.retries >= 0)) throw new ClustersServiceOptionsError(`retry.retries must be >= 0, got ${retry.retries}`);
  return {
    baseUrl: url.toString().replace(/\/+$/, ''),
    token: options.token,
    requestTimeoutMs,
    retry,
    pageSize,
    maxResponseBytes,
    onCall: options.onCall,
    logger: options.logger,
    fetch: options.fetch ?? globalThis.fetch,
  };
}
