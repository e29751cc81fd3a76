/**
 * Writes the malformed documents during the run, spread evenly over the fault schedule, cycling
 * through every kind (at least one of each, at least `share` of the operations).
 */
import type { Container } from '@azure/cosmos';
import type { Target } from './frontend-requests';
import { MALFORMED_KINDS, malformedDocument, writeMalformed, type MalformedDocument } from './malformed';
import { sleep } from './util';

export interface MalformedFeedOptions {
  readonly operations: Container;
  readonly count: number;
  readonly spreadMs: number;
  readonly runId: string;
  /** Subscription of the invalid documents. */
  readonly subscription: string;
  readonly notifyBase: string;
  /** A live cluster of the workload, for the quote-name documents. */
  readonly victim: () => Target | undefined;
}

export function malformedCount(operations: number, share: number): number {
  return Math.max(MALFORMED_KINDS.length, Math.ceil(operations * share));
}

export async function feedMalformed(o: MalformedFeedOptions, written: MalformedDocument[], stopped: () => boolean): Promise<void> {
  const start = Date.now();
  for (let n = 0; n < o.count && !stopped(); n++) {
    await sleep(Math.max(0, start + ((n + 1) * o.spreadMs) / (o.count + 1) - Date.now()));
    const kind = MALFORMED_KINDS[n % MALFORMED_KINDS.length];
    const victim = o.victim() ?? { sub: o.subscription, rg: `rg-novictim-${o.runId}`, cluster: `novictim-${o.runId}` };
    const { meta, doc } = malformedDocument(kind, n, o.runId, o.subscription, victim, o.notifyBase);
    written.push(meta);
    await writeMalformed(o.operations, meta, doc);
  }
}
