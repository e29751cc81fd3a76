/** Per-call counters by endpoint (method + path template) and outcome (HTTP status or "dropped"). */

export interface CallCount {
  readonly endpoint: string;
  readonly status: number | 'dropped';
  readonly count: number;
}

export class CallCounters {
  private readonly counts = new Map<string, CallCount>();

  record(endpoint: string, status: number | 'dropped'): void {
    const key = `${endpoint} ${status}`;
    const prev = this.counts.get(key);
    this.counts.set(key, { endpoint, status, count: (prev?.count ?? 0) + 1 });
  }

  /** Calls to `endpoint` (all outcomes, or one). */
  count(endpoint: string, status?: number | 'dropped'): number {
    let total = 0;
    for (const c of this.counts.values()) if (c.endpoint === endpoint && (status === undefined || c.status === status)) total += c.count;
    return total;
  }

  list(): CallCount[] {
    return [...this.counts.values()].sort(
      (a, b) => a.endpoint.localeCompare(b.endpoint) || String(a.status).localeCompare(String(b.status)),
    );
  }

  reset(): void {
    this.counts.clear();
  }
}
