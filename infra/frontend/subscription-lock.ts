import { Container, ErrorResponse } from '@azure/cosmos';

export interface FrontendLockOptions {
  /** Give up after this. @defaultValue 15_000 */
  timeoutMs?: number;
  /** Ceiling of the first wait after a 409; it doubles per retry. @defaultValue 10 */
  retryBaseMs?: number;
  /** Ceiling of any single wait. @defaultValue 250 */
  retryMaxMs?: number;
  /** Uniform in [0, 1); injectable for deterministic tests. @defaultValue Math.random */
  random?: () => number;
}

/**
 * Wait before retry number `attempt` (0-based): capped exponential backoff with full jitter,
 * uniform over [1, min(max, base·2^attempt)]. A fixed short interval had every waiter retry in
 * step, and under CPU saturation that retry storm starved the lock holder.
 */
export function frontendLockRetryDelayMs(attempt: number, baseMs: number, maxMs: number, random: () => number): number {
  const ceiling = Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt));
  return Math.max(1, Math.round(ceiling * random()));
}

/**
 * The frontend's side of the subscription lock: it writes Resource and Operation documents while
 * holding it, as ARO-HCP's frontend does. Create = acquire (409 = held), delete = release; the
 * container's TTL frees a lock whose holder died. Sections here are short (two writes), so no renewal.
 */
export async function withFrontendLock<T>(
  locks: Container,
  subscriptionId: string,
  owner: string,
  fn: () => Promise<T>,
  options: FrontendLockOptions = {},
): Promise<T> {
  const id = subscriptionId.toLowerCase();
  const timeoutMs = options.timeoutMs ?? 15_000;
  const { retryBaseMs = 10, retryMaxMs = 250, random = Math.random } = options;
  const deadline = Date.now() + timeoutMs;
  let etag: string | undefined;
  for (let attempt = 0; ; attempt++) {
    try {
      const res = await locks.items.create({ id, owner, acquiredAt: new Date().toISOString() });
      etag = res.etag;
      break;
    } catch (err) {
      if ((err as ErrorResponse).code !== 409) throw err;
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new Error(`frontend: subscription lock ${id} still held after ${timeoutMs} ms`, { cause: err });
      // Never sleep past the deadline: the last attempt happens at it.
      const delay = Math.min(frontendLockRetryDelayMs(attempt, retryBaseMs, retryMaxMs, random), remaining);
      await new Promise((r) => setTimeout(r, delay));
    }
  }
  try {
    return await fn();
  } finally {
    // A release that fails (a 503) must not fail a section whose writes went through: the lock's
    // TTL frees it, as it frees the lock of a frontend that died.
    await locks
      .item(id, id)
      .delete({ accessCondition: { type: 'IfMatch', condition: etag } })
      .catch(() => undefined);
  }
}
