import type { Observable } from 'rxjs';
import { isObservable, lastValueFrom } from 'rxjs';
import type { FeedRangeBounds } from './lease/lease-document';

/** What a handler (or the stream subscriber) learns about the batch it is given. */
export interface ChangeFeedContext {
  leaseToken: string;
  feedRange: FeedRangeBounds;
  instanceName: string;
  processorName: string;
  /** The lease's continuation before this batch (raw etag), `null` = from the beginning. */
  continuation: string | null;
  /** 0-based attempt within the current delivery phase (see README, poison isolation). */
  attempt: number;
  /** True when the batch is part of a page being bisected to isolate a failing document. */
  isolated: boolean;
  /** Aborted when the lease is lost, the reader stalls or the processor stops. */
  signal: AbortSignal;
}

/**
 * Handles one batch. The checkpoint advances only after the returned promise resolves or the
 * returned Observable completes; a rejection or error is a failed attempt (retried, then isolated).
 */
export type ChangeFeedHandler<T> = (documents: readonly T[], context: ChangeFeedContext) => Promise<unknown> | Observable<unknown> | void;

/**
 * Receives a document that kept failing on its own; the range moves on once it resolves. Typically
 * writes the document and the error to a dead-letter store. A rejection is retried, then the lease
 * is released so the batch is retried later (the range does not move past an unrecorded document).
 */
export type PoisonHandler<T> = (document: T, error: unknown, context: ChangeFeedContext) => Promise<unknown> | void;

/** Awaits a handler result of any of the accepted shapes. */
export async function settle(result: Promise<unknown> | Observable<unknown> | void): Promise<void> {
  if (isObservable(result)) {
    await lastValueFrom(result, { defaultValue: undefined });
    return;
  }
  await result;
}

/** Resolves or rejects with `promise`, or rejects with the signal's reason as soon as it aborts. */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => undefined);
    return Promise.reject(signal.reason ?? new Error('aborted'));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason ?? new Error('aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}

/** Rejects with `onTimeout()` if `promise` has not settled within `ms`. */
export function withTimeout<T>(promise: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      promise.catch(() => undefined);
      reject(onTimeout());
    }, ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (err: unknown) => {
        clearTimeout(timer);
        reject(err);
      },
    );
  });
}
