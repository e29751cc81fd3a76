/**
 * Every error the change feed processor raises or reports. Engine errors (Cosmos reads, lease
 * writes, timeouts) are kept apart from handler errors (the caller's code failed). Each carries
 * `retriable`, `cause` and the lease token it concerns; use the predicates, never the message.
 */

export interface ErrorContext {
  leaseToken?: string;
  instanceName?: string;
  statusCode?: number;
  subStatusCode?: number;
}

/** The base of every error the processor raises or reports: `retriable`, `cause` and the lease it concerns. */
export class ChangeFeedError extends Error {
  readonly retriable: boolean;
  readonly leaseToken?: string;
  readonly instanceName?: string;
  readonly statusCode?: number;
  readonly subStatusCode?: number;

  constructor(message: string, options: { retriable: boolean; cause?: unknown } & ErrorContext) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.retriable = options.retriable;
    this.leaseToken = options.leaseToken;
    this.instanceName = options.instanceName;
    this.statusCode = options.statusCode;
    this.subStatusCode = options.subStatusCode;
  }
}

/** Bad options or an unusable container setup; never retried, the message says how to fix it. */
export class ChangeFeedConfigurationError extends ChangeFeedError {
  constructor(message: string, cause?: unknown) {
    super(message, { retriable: false, cause });
  }
}

/** A Cosmos call of the engine failed (read, lease write, bootstrap). `retriable` follows the status. */
export class ChangeFeedEngineError extends ChangeFeedError {}

/** A change feed read did not answer within `readTimeoutMs`; the read is abandoned and retried. */
export class ReadTimeoutError extends ChangeFeedError {
  constructor(timeoutMs: number, context: ErrorContext) {
    super(`change feed read timed out after ${timeoutMs} ms`, { retriable: true, ...context });
  }
}

/**
 * The lease is no longer ours: another instance took it (412 then a different Owner), or it was
 * deleted (`gone`, e.g. after a split). The reader stops without writing the lease again.
 */
export class LeaseLostError extends ChangeFeedError {
  readonly gone: boolean;
  readonly newOwner?: string | null;
  constructor(leaseToken: string, options: { gone?: boolean; newOwner?: string | null; cause?: unknown; instanceName?: string } = {}) {
    const why = options.gone ? 'was deleted' : `is now owned by ${JSON.stringify(options.newOwner ?? null)}`;
    super(`lease ${leaseToken} ${why}`, { retriable: false, leaseToken, cause: options.cause, instanceName: options.instanceName });
    this.gone = options.gone ?? false;
    this.newOwner = options.newOwner;
  }
}

/** An operator asked for the lease to be handed over (`properties.releaseRequestedAt`); the owner releases it. */
export class ReleaseRequestedError extends ChangeFeedError {
  constructor(
    leaseToken: string,
    /** When the hand-over was asked for, or undefined for a reset. */
    readonly requestedAt: string | undefined,
    /** A reset of the position: the continuation to release the lease with (`null`: the beginning). */
    readonly resetTo?: { continuation: string | null },
  ) {
    super(resetTo ? `lease ${leaseToken}: reset of its position requested` : `lease ${leaseToken}: hand-over requested at ${requestedAt}`, {
      retriable: false,
      leaseToken,
    });
  }
}

/** The reader made no progress within `stallTimeoutMs`; it gives its lease up. */
export class ReaderStalledError extends ChangeFeedError {
  constructor(stallTimeoutMs: number, context: ErrorContext) {
    super(`no read or handler attempt completed within ${stallTimeoutMs} ms`, { retriable: true, ...context });
  }
}

/** The caller's handler (or the stream subscriber) failed on a batch. */
export class HandlerError extends ChangeFeedError {
  readonly documentCount: number;
  constructor(cause: unknown, context: ErrorContext & { documentCount: number }) {
    super(`handler failed on ${context.documentCount} document(s): ${messageOf(cause)}`, { retriable: true, cause, ...context });
    this.documentCount = context.documentCount;
  }
}

/** The `onPoison` hook itself failed: the range cannot move on, so the lease is released and retried later. */
export class PoisonHookError extends ChangeFeedError {
  constructor(cause: unknown, context: ErrorContext) {
    super(`onPoison failed: ${messageOf(cause)}`, { retriable: true, cause, ...context });
  }
}

export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

// ---- Cosmos status predicates (the SDK throws ErrorResponse with numeric `code`) ----

interface CosmosLikeError {
  code?: number | string;
  statusCode?: number;
  substatus?: number;
  retryAfterInMs?: number;
  retryAfterInMilliseconds?: number;
  name?: string;
}

export function statusOf(err: unknown): number | undefined {
  if (err === null || typeof err !== 'object') return undefined;
  const e = err as CosmosLikeError;
  if (typeof e.statusCode === 'number') return e.statusCode;
  return typeof e.code === 'number' ? e.code : undefined;
}

function subStatusOf(err: unknown): number | undefined {
  if (err === null || typeof err !== 'object') return undefined;
  const e = err as CosmosLikeError & { subStatusCode?: number };
  return typeof e.substatus === 'number' ? e.substatus : typeof e.subStatusCode === 'number' ? e.subStatusCode : undefined;
}

export function retryAfterMsOf(err: unknown): number | undefined {
  if (err === null || typeof err !== 'object') return undefined;
  const e = err as CosmosLikeError;
  return e.retryAfterInMs ?? e.retryAfterInMilliseconds;
}

const NETWORK_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT', 'EPIPE', 'EAI_AGAIN', 'ENOTFOUND', 'UND_ERR_SOCKET']);

/** 408, 410 (other than a split), 429, 449, 5xx, network resets and our own timeouts: back off and keep the lease. */
export function isTransient(err: unknown): boolean {
  if (err instanceof ChangeFeedError) return err.retriable && !(err instanceof HandlerError);
  const status = statusOf(err);
  if (status !== undefined) return status === 408 || status === 410 || status === 429 || status === 449 || status >= 500;
  if (err !== null && typeof err === 'object') {
    const code = (err as { code?: unknown }).code;
    if (typeof code === 'string' && NETWORK_CODES.has(code)) return true;
    const name = (err as { name?: unknown }).name;
    if (name === 'AbortError' || name === 'TimeoutError') return true;
  }
  return false;
}

export const isPreconditionFailed = (err: unknown): boolean => statusOf(err) === 412;
export const isNotFound = (err: unknown): boolean => statusOf(err) === 404;
export const isConflict = (err: unknown): boolean => statusOf(err) === 409;
export const isLeaseLost = (err: unknown): err is LeaseLostError => err instanceof LeaseLostError;

/** Wraps a raw SDK error as an engine error with context, preserving the status. */
export function engineError(what: string, err: unknown, context: ErrorContext = {}): ChangeFeedEngineError {
  if (err instanceof ChangeFeedEngineError) return err;
  return new ChangeFeedEngineError(`${what}: ${messageOf(err)}`, {
    retriable: isTransient(err),
    cause: err,
    statusCode: statusOf(err),
    subStatusCode: subStatusOf(err),
    ...context,
  });
}
