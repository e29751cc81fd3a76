/**
 * Retry policy as data: the next delay is a pure function of the attempt, so it is table-tested
 * and shared by opstream's retry loops (Cosmos, Clusters Service, ARM notifications, locks).
 * The change feed package keeps its own copy (src/changefeed/util/backoff.ts): it is installed
 * on its own and depends on nothing of opstream; the two policies have the same shape, so one
 * `BackoffPolicy` value configures both.
 */
export interface BackoffPolicy {
  /** Attempts after the first one; `Infinity` retries until aborted. */
  retries: number;
  /** Delay before the first retry. @defaultValue 100 */
  initialDelayMs: number;
  /** Ceiling of any single delay. @defaultValue 10_000 */
  maxDelayMs: number;
  /** Growth factor per attempt. @defaultValue 2 */
  multiplier: number;
  /** Fraction of the delay randomised away (0 = none, 1 = "full jitter"). @defaultValue 0.2 */
  jitter: number;
}

export const DEFAULT_BACKOFF: Readonly<BackoffPolicy> = Object.freeze({
  retries: 5,
  initialDelayMs: 100,
  maxDelayMs: 10_000,
  multiplier: 2,
  jitter: 0.2,
});

/**
 * Delay before retry number `attempt` (0-based). A server's `Retry-After` wins when larger;
 * `random` is injectable so tests are deterministic.
 */
export function nextDelayMs(policy: BackoffPolicy, attempt: number, retryAfterMs?: number, random: () => number = Math.random): number {
  const exp = Math.min(policy.maxDelayMs, policy.initialDelayMs * Math.pow(policy.multiplier, Math.max(0, attempt)));
  const jittered = exp * (1 - policy.jitter * random());
  const delay = Math.max(0, Math.round(jittered));
  return retryAfterMs !== undefined && retryAfterMs > delay ? retryAfterMs : delay;
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason ?? new Error('aborted'));
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason ?? new Error('aborted'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export interface RetryDecision {
  retry: boolean;
  /** Server-requested wait (e.g. `Retry-After`, `x-ms-retry-after-ms`). */
  retryAfterMs?: number;
}

/**
 * Runs `fn` until it succeeds, `classify` says the error is not retriable, the policy's retries
 * are spent, or `signal` aborts. The last error is rethrown unchanged.
 */
export async function retry<T>(
  fn: (attempt: number) => Promise<T>,
  classify: (err: unknown) => RetryDecision,
  policy: BackoffPolicy = DEFAULT_BACKOFF,
  options: { signal?: AbortSignal; onRetry?: (err: unknown, attempt: number, delayMs: number) => void } = {},
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (err) {
      const decision = classify(err);
      if (!decision.retry || attempt >= policy.retries || options.signal?.aborted) throw err;
      const delay = nextDelayMs(policy, attempt, decision.retryAfterMs);
      options.onRetry?.(err, attempt, delay);
      await sleep(delay, options.signal);
    }
  }
}
