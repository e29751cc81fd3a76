import type { OperationStatus } from '../../domain/types';

/**
 * What handling one item concluded, in the reconciler style: finished, look again after a delay
 * (parked, e.g. waiting on Clusters Service), or failed for good (counted, dead-lettered).
 */
export type Outcome =
  { kind: 'done'; note?: string } | { kind: 'again'; afterMs: number; note?: string } | { kind: 'failed'; error: Error };

export const done = (note?: string): Outcome => ({ kind: 'done', note });
export const again = (afterMs: number, note?: string): Outcome => ({ kind: 'again', afterMs, note });

/**
 * The operation was just written terminal: handle it again right away, which notifies ARM (the
 * terminal branch of the reconciler) and then finishes it.
 */
export const finished = (status: OperationStatus, why?: string): Outcome => again(0, `${why ?? status}: notify`);
