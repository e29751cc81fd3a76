import { parseRetryAfter } from '../util/retry-after';

/**
 * What one answer of ARM to a notification means, as ARM documents its answers: 2xx delivered it;
 * 408, 429 and 5xx ask to try again later (after `Retry-After`, when given); a redirect is not
 * followed (it would send the body wherever the answer says) and, like any other 4xx, is final.
 */
export type RetryReason = 'connection' | 'timeout' | 'throttled' | 'server-error';
export type FinalReason = 'redirect' | 'rejected';

export type AnswerMeaning =
  { kind: 'delivered' } | { kind: 'retry'; reason: RetryReason; retryAfterMs?: number } | { kind: 'final'; reason: FinalReason };

export function meaningOf(status: number, retryAfter?: string, now = Date.now()): AnswerMeaning {
  if (status >= 200 && status < 300) return { kind: 'delivered' };
  if (status === 408 || status === 429 || status >= 500) {
    const retryAfterMs = parseRetryAfter(retryAfter ?? null, now);
    return { kind: 'retry', reason: status >= 500 ? 'server-error' : 'throttled', ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) };
  }
  if (status >= 300 && status < 400) return { kind: 'final', reason: 'redirect' };
  // 4xx, and what is no HTTP answer at all (1xx as final, or beyond 599).
  return { kind: 'final', reason: 'rejected' };
}
