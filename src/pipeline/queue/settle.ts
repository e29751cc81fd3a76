import type { SettlementResult } from '../events';
import type { Outcome } from './outcome';
import type { FailureKind } from './failure';
import { afterThrow, NO_FAILURES, type FailureCount, type RetryPolicy } from './retry-policy';

/**
 * The one switch from what a handling returned (or threw) to what the queue does with the item and
 * how the settlement is counted (like controller-runtime's reconcileHandler): every path through it
 * is in this file, so a new kind of settlement cannot be handled in one place and forgotten in another.
 */
export type Handled = { outcome: Outcome } | { thrown: unknown; kind: FailureKind; retryAfterMs?: number } | { abandoned: true };

/** How the queue settled a handling, as counted in `opstream_queue_settlements_total{result}`. */
export type { SettlementResult };
export const SETTLEMENT_RESULTS: readonly SettlementResult[] = ['done', 'requeued', 'retried', 'failed', 'abandoned'];

export interface Settlement {
  /** `forget`: the item leaves the queue; `requeue`: it is due again after `afterMs`. */
  action: { kind: 'forget' } | { kind: 'requeue'; afterMs: number };
  /** What the item's waiters (a change-feed batch waiting to checkpoint) are told. */
  outcome: Outcome;
  result: SettlementResult;
  /** The item's failure history from now on. */
  failures: FailureCount;
}

export function settle(handled: Handled, failures: FailureCount, policy: RetryPolicy, random?: () => number): Settlement {
  if ('abandoned' in handled) {
    // Fenced at stop: not a failure of the item; the range's next owner relists it.
    return { action: { kind: 'forget' }, outcome: { kind: 'done', note: 'abandoned at stop' }, result: 'abandoned', failures };
  }
  if ('outcome' in handled) {
    const { outcome } = handled;
    switch (outcome.kind) {
      case 'done':
        return { action: { kind: 'forget' }, outcome, result: 'done', failures: NO_FAILURES };
      case 'again': {
        // A delay that is not a number of milliseconds is a defect of the handling: failed (and
        // dead-lettered) rather than turned into a timer that fires at once, over and over.
        if (!Number.isFinite(outcome.afterMs)) {
          const error = new RangeError(`the handling asked to look again after a non-finite delay (${outcome.afterMs} ms): a defect`);
          return { action: { kind: 'forget' }, outcome: { kind: 'failed', error }, result: 'failed', failures: NO_FAILURES };
        }
        return { action: { kind: 'requeue', afterMs: Math.max(0, outcome.afterMs) }, outcome, result: 'requeued', failures: NO_FAILURES };
      }
      case 'failed':
        return { action: { kind: 'forget' }, outcome, result: 'failed', failures: NO_FAILURES };
    }
  }
  const error = handled.thrown instanceof Error ? handled.thrown : new Error(String(handled.thrown));
  const decision = afterThrow(policy, failures, handled.kind, random, handled.retryAfterMs);
  if (!decision.retry)
    return { action: { kind: 'forget' }, outcome: { kind: 'failed', error }, result: 'failed', failures: decision.count };
  return {
    action: { kind: 'requeue', afterMs: decision.afterMs },
    outcome: { kind: 'again', afterMs: decision.afterMs, note: `retry after error: ${error.message}` },
    result: 'retried',
    failures: decision.count,
  };
}
