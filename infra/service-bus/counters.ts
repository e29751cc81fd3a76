/** Counters by operation (admin `GET /counters`), for tests and benchmarks. */
export const COUNTER_NAMES = [
  'connections',
  'cbsAccepted',
  'cbsRejected',
  'linksRefused',
  'sent',
  'sendRefused',
  'duplicatesDropped',
  'delivered',
  'completed',
  'abandoned',
  'deferred',
  'deadLettered',
  'lockLost',
  'management',
  'faultServerBusy',
  'faultRefusedSend',
  'faultLatency',
  'faultDropped',
  'malformed',
] as const;
export type CounterName = (typeof COUNTER_NAMES)[number];
export type CounterSnapshot = Record<CounterName, number> & { managementByOperation: Record<string, number> };

export class Counters {
  private c = new Map<CounterName, number>();
  private mgmt = new Map<string, number>();

  add(name: CounterName, n = 1): void {
    this.c.set(name, (this.c.get(name) ?? 0) + n);
  }
  management(op: string): void {
    this.add('management');
    this.mgmt.set(op, (this.mgmt.get(op) ?? 0) + 1);
  }
  snapshot(): CounterSnapshot {
    const out = Object.fromEntries(COUNTER_NAMES.map((n) => [n, this.c.get(n) ?? 0])) as Record<CounterName, number>;
    return { ...out, managementByOperation: Object.fromEntries(this.mgmt) };
  }
  reset(): void {
    this.c.clear();
    this.mgmt.clear();
  }
}
