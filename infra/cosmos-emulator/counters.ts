/**
 * Request counters by kind, and the request units charged per kind, for benchmarks and tests ("how many
 * change-feed polls answered 304, and what did they cost?"). Admin calls are not counted.
 */
export const REQUEST_KINDS = [
  'metadata',
  'pkranges',
  'pointRead',
  'write',
  'batch',
  'query',
  'queryPlan',
  'readFeed',
  'changeFeed',
] as const;
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
  /** Request units charged (`x-ms-request-charge`), by the same kinds; refused requests (401/429/503) cost 0. */
  requestUnits: RequestUnitSnapshot;
  /**
   * The same requests and charges by container (its id; `-` for account and database requests), so a
   * benchmark can tell lease upkeep from the documents' own reads and writes.
   */
  byContainer: Record<string, ContainerCounters>;
}

export interface ContainerCounters {
  requests: Partial<Record<ChargeKey, number>>;
  requestUnits: Partial<Record<ChargeKey, number>> & { total: number };
}

type ChargeKey = Exclude<keyof RequestUnitSnapshot, 'total'>;

export interface RequestUnitSnapshot {
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
  changeFeedOther: number;
  total: number;
}

const zeroUnits = (): RequestUnitSnapshot => ({
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
  total: 0,
});

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
  requestUnits: zeroUnits(),
  byContainer: {},
});

/** Sums of hundredths stay exact as hundredths (no 0.1 + 0.2 drift in long runs). */
const addCharge = (sum: number, charge: number): number => Math.round((sum + charge) * 100) / 100;

export class Counters {
  private c = zero();

  /** Counts a request that reached a handler and what it was charged; change-feed requests by their status. */
  countRequest(kind: RequestKind, status: number, charge: number, container = '-'): void {
    this.c.total++;
    const ru = this.c.requestUnits;
    ru.total = addCharge(ru.total, charge);
    let key: ChargeKey = kind === 'changeFeed' ? 'changeFeedOther' : kind;
    if (kind === 'changeFeed' && status === 200) key = 'changeFeed200';
    else if (kind === 'changeFeed' && status === 304) key = 'changeFeed304';
    this.c[key]++;
    ru[key] = addCharge(ru[key], charge);
    const byContainer = (this.c.byContainer[container] ??= { requests: {}, requestUnits: { total: 0 } });
    byContainer.requests[key] = (byContainer.requests[key] ?? 0) + 1;
    byContainer.requestUnits[key] = addCharge(byContainer.requestUnits[key] ?? 0, charge);
    byContainer.requestUnits.total = addCharge(byContainer.requestUnits.total, charge);
  }

  countFault(fault: 'throttled' | 'unavailable' | 'dropped' | 'delayed' | 'unauthorized'): void {
    this.c[fault]++;
  }

  countUnhandled(): void {
    this.c.total++;
  }

  snapshot(): CounterSnapshot {
    return { ...this.c, requestUnits: { ...this.c.requestUnits }, byContainer: structuredClone(this.c.byContainer) };
  }

  reset(): void {
    this.c = zero();
  }
}
