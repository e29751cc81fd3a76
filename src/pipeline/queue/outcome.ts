/**
 * What handling one item concluded, in the reconciler style: done (the queue lets the item go), look
 * again after a delay (parked, e.g. waiting on Clusters Service), or failed for good (counted,
 * dead-lettered). The queue settles the item accordingly (settle.ts).
 */
export type Outcome =
  { kind: 'done'; note?: string } | { kind: 'again'; afterMs: number; note?: string } | { kind: 'failed'; error: Error };

export const done = (note?: string): Outcome => ({ kind: 'done', note });
export const again = (afterMs: number, note?: string): Outcome => ({ kind: 'again', afterMs, note });
