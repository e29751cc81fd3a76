import type { ChangeFeedError } from './errors';

/**
 * Every event the processor emits on `events$`, with dotted names. This file is the reference.
 *
 * | name | when | payload |
 * |---|---|---|
 * | changefeed.processor.started | `start()` finished bootstrap; balancing runs | — |
 * | changefeed.processor.stopped | `stop()` released every lease | — |
 * | changefeed.lease.created | bootstrap or a split created a lease document | leaseToken, continuation |
 * | changefeed.lease.acquired | this instance took a lease and started its reader | leaseToken, feedRange, reason (own/unowned/expired/steal/split) |
 * | changefeed.lease.released | this instance gave a lease up (Owner set to null) | leaseToken, reason (shutdown/stalled/error/requested: handed over on request) |
 * | changefeed.lease.lost | another instance owns the lease now, or it was deleted; not an error | leaseToken, newOwner |
 * | changefeed.lease.split | a range split: the parent lease was replaced by its children | leaseToken, children |
 * | changefeed.batch | the handler completed a batch (before its checkpoint) | leaseToken, documents, durationMs |
 * | changefeed.checkpoint | a lease's continuation was written | leaseToken, continuation |
 * | changefeed.handler.failed | one handler attempt failed (it will be retried or isolated) | leaseToken, error, documents, attempt, isolated |
 * | changefeed.poison | a document was handed to `onPoison`; the range moved on | leaseToken, document, error |
 * | changefeed.error | an engine error (read, lease write, timeout, stall); `retriable` says whether the lease is kept | leaseToken?, error |
 */
export const EVENTS = Object.freeze({
  processorStarted: 'changefeed.processor.started',
  processorStopped: 'changefeed.processor.stopped',
  leaseCreated: 'changefeed.lease.created',
  leaseAcquired: 'changefeed.lease.acquired',
  leaseReleased: 'changefeed.lease.released',
  leaseLost: 'changefeed.lease.lost',
  leaseSplit: 'changefeed.lease.split',
  batch: 'changefeed.batch',
  checkpoint: 'changefeed.checkpoint',
  handlerFailed: 'changefeed.handler.failed',
  poison: 'changefeed.poison',
  error: 'changefeed.error',
} as const);

interface ChangeFeedEventBase {
  /** Wall-clock ms. */
  at: number;
  instanceName: string;
}

type ReleaseReason = 'shutdown' | 'stalled' | 'error' | 'requested';

/** Everything `events$` emits, discriminated by `type` (one of `EVENTS`). */
export type ChangeFeedEvent =
  | (ChangeFeedEventBase & { type: typeof EVENTS.processorStarted })
  | (ChangeFeedEventBase & { type: typeof EVENTS.processorStopped })
  | (ChangeFeedEventBase & { type: typeof EVENTS.leaseCreated; leaseToken: string; continuation: string | null })
  | (ChangeFeedEventBase & {
      type: typeof EVENTS.leaseAcquired;
      leaseToken: string;
      feedRange: { min: string; max: string };
      reason: 'own' | 'unowned' | 'expired' | 'steal' | 'split';
    })
  | (ChangeFeedEventBase & { type: typeof EVENTS.leaseReleased; leaseToken: string; reason: ReleaseReason })
  | (ChangeFeedEventBase & { type: typeof EVENTS.leaseLost; leaseToken: string; newOwner: string | null; gone: boolean })
  | (ChangeFeedEventBase & { type: typeof EVENTS.leaseSplit; leaseToken: string; children: string[] })
  | (ChangeFeedEventBase & { type: typeof EVENTS.batch; leaseToken: string; documents: number; durationMs: number })
  | (ChangeFeedEventBase & { type: typeof EVENTS.checkpoint; leaseToken: string; continuation: string | null })
  | (ChangeFeedEventBase & {
      type: typeof EVENTS.handlerFailed;
      leaseToken: string;
      error: unknown;
      documents: number;
      attempt: number;
      isolated: boolean;
    })
  | (ChangeFeedEventBase & { type: typeof EVENTS.poison; leaseToken: string; document: unknown; error: unknown })
  | (ChangeFeedEventBase & { type: typeof EVENTS.error; leaseToken?: string; error: ChangeFeedError });

export type ChangeFeedEventType = ChangeFeedEvent['type'];

/** Narrows `events$` to one event type: `events$.pipe(filter(ofType(EVENTS.poison)))`. */
export function ofType<K extends ChangeFeedEventType>(type: K) {
  return (event: ChangeFeedEvent): event is Extract<ChangeFeedEvent, { type: K }> => event.type === type;
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
/** What components hand to the emitter; `at` and `instanceName` are stamped on. */
export type EventInput = DistributiveOmit<ChangeFeedEvent, 'at' | 'instanceName'>;
export type Emit = (event: EventInput) => void;
