/**
 * Request counters by kind, for benchmarks and tests ("how many change-feed polls answered 304?").
 * Admin calls are not counted.
 */
export const REQUEST_KINDS = ['metadata', 'pkranges', 'pointRead', 'write', 'batch', 'query', 'queryPlan', 'readFeed', 'changeFeed'] as const;
export type RequestKind = (typeof REQUEST_KINDS)[number];

export interface CounterSnapshot {
  metadata: number;
  pkranges: number;
  pointRead: number;
  write: number;
  batch: number;
  query: number;
  queryPlan: number;
  readFeed: number;
  changeFeed200: number;
  changeFeed304: number;
  /** Change-feed requests answered otherwise (410 after a split, 4xx…). */
  changeFeedOther: number;
  /** Faults injected: 429s, 503s, dropped connections, delayed requests. */
  throttled: number;
  unavailable: number;
  dropped: number;
  delayed: number;
  /** Requests refused with 401. */
  unauthorized: number;
  /** Every non-admin request, whatever happened to it. */
  total: number;
}

const zero = (): CounterSnapshot => ({
  metadata: 0,
  pkranges: 0,
  pointRead: 0,
  write: 0,
  batch: 0,
  query: 0,
  queryPlan: 0,
  readFeed: 0,
  changeFeed200: 0,
  changeFeed304: 0,
  changeFeedOther: 0,
  throttled: 0,
  unavailable: 0,
  dropped: 0,
  delayed: 0,
  unauthorized: 0,
  total: 0,
});

export class Counters {
  private c = zero();

  /** Counts a request that reached a handler; change-feed requests are counted by their status. */
  countRequest(kind: RequestKind, status: number): void {
    this.c.total++;
    if (kind === 'changeFeed') {
      if (status === 200) this.c.changeFeed200++;
      else if (status === 304) this.c.changeFeed304++;
      else this.c.changeFeedOther++;
      return;
    }
    this.c[kind]++;
  }

  countFault(fault: 'throttled' | 'unavailable' | 'dropped' | 'delayed' | 'unauthorized'): void {
    this.c[fault]++;
  }

  countUnhandled(): void {
    this.c.total++;
  }

  snapshot(): CounterSnapshot {
    return { ...this.c };
  }

  reset(): void {
    this.c = zero();
  }
}
