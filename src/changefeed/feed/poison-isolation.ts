import type { BackoffPolicy } from '../util/backoff';
import { nextDelayMs, sleep as realSleep } from '../util/backoff';

/**
 * Delivers one page to the handler so that a failing document cannot block its range:
 *
 * 1. the whole batch is attempted `1 + handlerRetry.retries` times with backoff;
 * 2. if it still fails it is bisected: each half gets one attempt, a failing half is bisected
 *    again, left before right, so the documents that succeed are delivered in feed order;
 * 3. a single failing document gets `poisonAttempts` attempts of its own (backoff between them;
 *    a one-document page counts its first-phase attempts) and then goes to `onPoison` with the
 *    last error, and delivery carries on with the next document.
 *
 * A document that succeeded inside a failed attempt may be delivered again (at-least-once).
 * Attempts for k poison documents in a page of n: O(retries + k·(log n + poisonAttempts)).
 * Returns when every document was delivered or poisoned; throws only if `onPoison` itself keeps
 * failing, or with the signal's reason when aborted.
 */
export interface IsolationDeps<T> {
  /** One handler attempt; rejects on failure. */
  attempt(docs: readonly T[], info: AttemptInfo): Promise<void>;
  /** Receives an isolated document that failed `poisonAttempts` times; rejects to be retried. */
  onPoison(doc: T, error: unknown, info: AttemptInfo): Promise<void>;
  handlerRetry: BackoffPolicy;
  poisonAttempts: number;
  signal?: AbortSignal;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
  /** Observes every failed attempt (logging, events). */
  onAttemptFailed?(error: unknown, docs: readonly T[], info: AttemptInfo): void;
}

interface AttemptInfo {
  /** 0-based attempt number within the current phase. */
  attempt: number;
  /** True once the page has been split; the docs are a sub-batch or a single isolated document. */
  isolated: boolean;
}

export interface IsolationResult<T> {
  poisoned: T[];
  attempts: number;
}

export async function deliverWithIsolation<T>(docs: readonly T[], deps: IsolationDeps<T>): Promise<IsolationResult<T>> {
  const result: IsolationResult<T> = { poisoned: [], attempts: 0 };
  if (docs.length === 0) return result;
  const wholeAttempts = 1 + deps.handlerRetry.retries;
  if (docs.length === 1) {
    const error = await tryAttempts(docs, Math.max(wholeAttempts, deps.poisonAttempts), false, deps, result);
    if (error !== undefined) await poison(docs[0], error.error, deps, result);
    return result;
  }
  const failed = await tryAttempts(docs, wholeAttempts, false, deps, result);
  if (failed !== undefined) await bisect(docs, deps, result);
  return result;
}

async function bisect<T>(docs: readonly T[], deps: IsolationDeps<T>, result: IsolationResult<T>): Promise<void> {
  if (docs.length === 1) {
    const failed = await tryAttempts(docs, deps.poisonAttempts, true, deps, result);
    if (failed !== undefined) await poison(docs[0], failed.error, deps, result);
    return;
  }
  const mid = Math.ceil(docs.length / 2);
  for (const half of [docs.slice(0, mid), docs.slice(mid)]) {
    // A single document goes straight to its own poisonAttempts attempts.
    const failed = half.length === 1 ? true : await tryAttempts(half, 1, true, deps, result);
    if (failed !== undefined) await bisect(half, deps, result);
  }
}

/** Runs up to `attempts` attempts; returns the last error, or undefined on success. */
async function tryAttempts<T>(
  docs: readonly T[],
  attempts: number,
  isolated: boolean,
  deps: IsolationDeps<T>,
  result: IsolationResult<T>,
): Promise<{ error: unknown } | undefined> {
  const sleep = deps.sleep ?? realSleep;
  let last: { error: unknown } | undefined;
  for (let attempt = 0; attempt < attempts; attempt++) {
    throwIfAborted(deps.signal);
    if (attempt > 0) await sleep(nextDelayMs(deps.handlerRetry, attempt - 1, undefined, deps.random), deps.signal);
    result.attempts++;
    const info = { attempt, isolated };
    try {
      await deps.attempt(docs, info);
      return undefined;
    } catch (error) {
      throwIfAborted(deps.signal);
      last = { error };
      deps.onAttemptFailed?.(error, docs, info);
    }
  }
  return last;
}

async function poison<T>(doc: T, error: unknown, deps: IsolationDeps<T>, result: IsolationResult<T>): Promise<void> {
  const sleep = deps.sleep ?? realSleep;
  const attempts = 1 + deps.handlerRetry.retries;
  for (let attempt = 0; ; attempt++) {
    throwIfAborted(deps.signal);
    try {
      await deps.onPoison(doc, error, { attempt, isolated: true });
      result.poisoned.push(doc);
      return;
    } catch (hookError) {
      if (attempt + 1 >= attempts) throw hookError;
      await sleep(nextDelayMs(deps.handlerRetry, attempt, undefined, deps.random), deps.signal);
    }
  }
}

function throwIfAborted(signal?: AbortSignal): void {
  if (signal?.aborted) throw signal.reason ?? new Error('aborted');
}
