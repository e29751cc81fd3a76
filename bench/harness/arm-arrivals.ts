/**
 * A bursty arrival process shaped like ARM traffic on one resource provider: bursts arrive at random
 * (exponential gaps), each on one subscription (so one feed range): a cluster Create, then node pool
 * Creates and sometimes an Update, each acknowledged by the backend's own write-backs (a status
 * transition at once, the terminal one seconds later) before the next request. Between bursts a
 * range is quiet for long stretches. Seeded: every policy sees the same schedule.
 */
import { seededRandom } from '@opstream/frontend-simulator';

export interface ArrivalWrite {
  /** Milliseconds from the start of the schedule. */
  readonly atMs: number;
  readonly partitionKey: string;
  readonly id: string;
  /** A frontend write (a new operation: its reaction is measured) or a backend write-back. */
  readonly by: 'frontend' | 'backend';
}

export interface ArrivalShape {
  /** Bursts start within this span. */
  readonly durationMs: number;
  /** Mean gap between burst starts, over the whole container. */
  readonly meanBurstGapMs: number;
  readonly seed: number;
}

export function armArrivals(shape: ArrivalShape): ArrivalWrite[] {
  const random = seededRandom(shape.seed);
  const between = (lo: number, hi: number): number => Math.round(lo + random() * (hi - lo));
  const writes: ArrivalWrite[] = [];
  let burst = 0;
  for (let start = between(500, 2_000); start < shape.durationMs; start += Math.round(-Math.log(1 - random()) * shape.meanBurstGapMs)) {
    // A subscription id, as the frontend's partition keys are (the hint contract requires one).
    const hex = (n: number): string => Array.from({ length: n }, () => Math.floor(random() * 16).toString(16)).join('');
    const partitionKey = `${hex(8)}-${hex(4)}-4${hex(3)}-a${hex(3)}-${(burst++).toString(16).padStart(12, '0')}`;
    let t = start;
    let n = 0;
    /** One operation: the frontend's write, the backend's status transition, its terminal write later. */
    const operation = (workMs: number): void => {
      const op = `${partitionKey}-op${n++}`;
      writes.push({ atMs: t, partitionKey, id: op, by: 'frontend' });
      writes.push({ atMs: t + between(20, 80), partitionKey, id: `${op}-accepted`, by: 'backend' });
      t += workMs;
      writes.push({ atMs: t, partitionKey, id: `${op}-done`, by: 'backend' });
    };
    operation(between(4_000, 9_000)); // the cluster
    const nodePools = between(1, 3);
    for (let i = 0; i < nodePools; i++) {
      t += between(500, 6_000); // ARM's caller polls the operation, then sends the next request
      operation(between(2_000, 5_000));
    }
    if (random() < 0.5) {
      t += between(3_000, 20_000);
      operation(between(2_000, 5_000));
    }
  }
  return writes.sort((a, b) => a.atMs - b.atMs);
}
