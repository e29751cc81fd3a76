/**
 * Errors of the Clusters Service client. Branch on the class or the predicates and on `retriable`;
 * `status` is the HTTP status when there was an answer. Messages never contain the bearer token.
 */
import { OpstreamError, type ErrorContext } from '../domain/errors';

export interface CallContext {
  /** `METHOD /template`, e.g. `GET /clusters/{id}`. */
  readonly endpoint: string;
  /** The concrete path called (ids included). */
  readonly path: string;
}

export abstract class ClustersServiceError extends OpstreamError {
  /** HTTP status of the answer; undefined when there was none (timeout, connection lost). */
  readonly status: number | undefined;
  readonly endpoint: string;

  constructor(message: string, call: CallContext, options: { status?: number; cause?: unknown; context?: ErrorContext } = {}) {
    super(`Clusters Service ${call.endpoint} (${call.path}): ${message}`, {
      cause: options.cause,
      context: { endpoint: call.endpoint, path: call.path, status: options.status, ...options.context },
    });
    this.status = options.status;
    this.endpoint = call.endpoint;
  }
}

/** An answer with an error status. `code`/`reason` come from the OCM error body when there was one. */
export abstract class ClustersServiceHttpError extends ClustersServiceError {
  declare readonly status: number;
  constructor(
    call: CallContext,
    status: number,
    readonly code: string | undefined,
    readonly reason: string | undefined,
    readonly retryAfterMs?: number,
  ) {
    const wait = retryAfterMs !== undefined ? ` (Retry-After: ${Math.round(retryAfterMs / 1000)} s)` : '';
    super(`HTTP ${status}${code ? ` ${code}` : ''}${reason ? `: ${reason}` : ''}${wait}`, call, { status, context: { code } });
  }
}

/** 404: the cluster or node pool does not exist (or its deletion finished). */
export class ClustersServiceNotFoundError extends ClustersServiceHttpError {
  readonly retriable = false;
}

/** 409: conflicts with the current state (id taken, not ready for an update, being deleted). */
export class ClustersServiceConflictError extends ClustersServiceHttpError {
  readonly retriable = false;
}

/** 429: throttled; retry after `retryAfterMs` when given. */
export class ClustersServiceThrottledError extends ClustersServiceHttpError {
  readonly retriable = true;
}

/** 5xx: the service failed; may work later. */
export class ClustersServiceServerError extends ClustersServiceHttpError {
  readonly retriable = true;
}

/**
 * Any other 4xx (400 bad request, 401/403 auth): the same call fails the same way, so the client
 * does not repeat it. A 401/403 is opstream's own credential refused, not the request: the queue
 * retries the handling (`isCredentialRefused`; the token is read again per call, so a rotated one
 * is picked up) and it is never blamed on the customer's operation.
 */
export class ClustersServiceClientError extends ClustersServiceHttpError {
  readonly retriable = false;
}

function isCredentialStatus(status: number): boolean {
  return status === 401 || status === 403;
}

/** Clusters Service refused opstream's credential (401/403): retry, alert; not the request's fault. */
export function isCredentialRefused(err: unknown): boolean {
  return err instanceof ClustersServiceClientError && isCredentialStatus(err.status);
}

/** No answer within the per-call timeout. For a POST/PATCH the outcome is unknown. */
export class ClustersServiceTimeoutError extends ClustersServiceError {
  readonly retriable = true;
  constructor(
    call: CallContext,
    readonly timeoutMs: number,
    /** True when the call may have taken effect (non-idempotent method). */
    readonly outcomeUnknown: boolean,
  ) {
    super(`no answer within ${timeoutMs} ms`, call, { context: { timeoutMs, outcomeUnknown } });
  }
}

/**
 * The connection failed or dropped before an answer. For a POST create this is the crash case:
 * the cluster may exist; recover by searching for it, never by blindly posting again.
 */
export class ClustersServiceConnectionError extends ClustersServiceError {
  readonly retriable = true;
  constructor(
    call: CallContext,
    /** True when the call may have taken effect (it was sent, and is not idempotent). */
    readonly outcomeUnknown: boolean,
    cause: unknown,
  ) {
    super(`connection failed${outcomeUnknown ? ' (the call may have taken effect)' : ''}: ${describeCause(cause)}`, call, {
      cause,
      context: { outcomeUnknown },
    });
  }
}

/** The answer is not what the API promises (not JSON, fails its schema, different id). Not retriable. */
export class ClustersServiceBadResponseError extends ClustersServiceError {
  readonly retriable = false;
  constructor(call: CallContext, message: string, options: { status?: number; cause?: unknown } = {}) {
    super(`unexpected response: ${message}`, call, options);
  }
}

/**
 * A request header value HTTP cannot carry (CR, LF, NUL, a character above 0xFF): the call was
 * never sent, so its outcome is known (nothing happened). The value is not repeated (it may be
 * the bearer token). Opstream's own credential (`authorization`) is waited out like a refused one;
 * any other header comes from the operation, and the same call fails the same way.
 */
export class ClustersServiceUnsendableRequestError extends ClustersServiceError {
  readonly retriable: boolean;
  readonly outcomeUnknown = false;
  constructor(
    call: CallContext,
    readonly header: string,
  ) {
    const whose =
      header === 'authorization' ? ' (the bearer token: check clustersService.tokenFile / OPSTREAM_CLUSTERS_SERVICE_TOKEN_FILE)' : '';
    super(`request header ${header}${whose} holds a character HTTP cannot carry (CR, LF, NUL or above U+00FF); nothing was sent`, call, {
      context: { header },
    });
    this.retriable = header === 'authorization';
  }
}

/**
 * A search by Azure identity found several clusters. Do not act on any of them: retry later (a
 * duplicate may still be deleting) and alert if it persists.
 */
export class AmbiguousClusterMatchError extends OpstreamError {
  readonly retriable = true;
  constructor(
    readonly clusterIds: readonly string[],
    expression: string,
  ) {
    super(`${clusterIds.length} Clusters Service clusters match ${expression}: ${clusterIds.join(', ')}`, {
      context: { matches: clusterIds.length },
    });
  }
}

/**
 * Errors from fetch come from Node's own realm (not jest's), so `instanceof Error` cannot be
 * trusted here: read `message`, `code` and `cause` structurally.
 */
function errorLike(value: unknown): { message?: unknown; code?: unknown; cause?: unknown } | undefined {
  return value !== null && typeof value === 'object' ? (value as { message?: unknown; code?: unknown; cause?: unknown }) : undefined;
}

/** The innermost cause's message and code, e.g. `connect ECONNREFUSED 127.0.0.1:8000 (ECONNREFUSED)`. */
function describeCause(cause: unknown): string {
  let current = errorLike(cause);
  for (let depth = 0; current && errorLike(current.cause) && depth < 5; depth++) current = errorLike(current.cause);
  if (!current) return String(cause);
  const message = typeof current.message === 'string' && current.message !== '' ? current.message : String(cause);
  return typeof current.code === 'string' ? `${message} (${current.code})` : message;
}

/** The first `code` (e.g. ECONNREFUSED, UND_ERR_SOCKET) along the cause chain. */
export function causeCode(err: unknown): string | undefined {
  let current = errorLike(err);
  for (let depth = 0; current && depth < 6; depth++) {
    if (typeof current.code === 'string') return current.code;
    current = errorLike(current.cause);
  }
  return undefined;
}

export function isClustersServiceError(err: unknown): err is ClustersServiceError {
  return err instanceof ClustersServiceError;
}

export function isNotFound(err: unknown): err is ClustersServiceNotFoundError {
  return err instanceof ClustersServiceNotFoundError;
}

export function isConflict(err: unknown): err is ClustersServiceConflictError {
  return err instanceof ClustersServiceConflictError;
}

/**
 * True when a failed call may nevertheless have taken effect: a timeout or lost connection on
 * POST/PATCH, or a 2xx answer that cannot be read (CS acted; what it said is unknown).
 */
export function isOutcomeUnknown(err: unknown): boolean {
  if (err instanceof ClustersServiceBadResponseError) return err.status === undefined || (err.status >= 200 && err.status < 300);
  return (err instanceof ClustersServiceTimeoutError || err instanceof ClustersServiceConnectionError) && err.outcomeUnknown;
}
