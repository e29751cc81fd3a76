/**
 * Fault injection as data: rules matched against each API call (never against admin calls), in
 * the order they were added. Latency rules add up; the first matching `error` or `drop-response`
 * rule decides the outcome. A rule with `times` expires after that many applications; `rate`
 * draws from a seeded generator so a run with the same seed injects the same faults.
 */

export type FaultKind =
  /** Answer `status` (default 503) with an OCM error body, without performing the call. */
  | 'error'
  /** Wait `latencyMs` before handling the call. */
  | 'latency'
  /**
   * Perform the call, then destroy the connection instead of answering. On `POST /clusters` this is
   * "the create succeeded but the response was lost": the cluster exists, the caller saw a network error.
   */
  | 'drop-response';

export interface FaultRule {
  kind: FaultKind;
  /** Endpoint as counted, e.g. `POST /clusters` or `GET /clusters/{id}/status`; absent = every API call. */
  endpoint?: string;
  /** For `error`. @defaultValue 503 */
  status?: number;
  /** For `latency`. */
  latencyMs?: number;
  /** Probability that a matching call is affected, 0..1. @defaultValue 1 */
  rate?: number;
  /** Apply to at most this many calls, then the rule is removed. @defaultValue unlimited */
  times?: number;
}

export interface ActiveFault extends FaultRule {
  readonly id: string;
  /** How many calls it affected so far. */
  applied: number;
}

export interface FaultPlan {
  /** Total injected latency. */
  latencyMs: number;
  /** The error or drop to apply, if any. */
  outcome?: { kind: 'error'; status: number } | { kind: 'drop-response' };
}

/** mulberry32: small, fast, seedable; good enough to spread faults. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export class FaultInjector {
  private rules: ActiveFault[] = [];
  private nextId = 1;

  constructor(private readonly random: () => number) {}

  add(rule: FaultRule): ActiveFault {
    validateRule(rule);
    const active: ActiveFault = { ...rule, id: `fault-${this.nextId++}`, applied: 0 };
    this.rules.push(active);
    return active;
  }

  remove(id: string): boolean {
    const before = this.rules.length;
    this.rules = this.rules.filter((r) => r.id !== id);
    return this.rules.length < before;
  }

  clear(): void {
    this.rules = [];
  }

  list(): ActiveFault[] {
    return this.rules.map((r) => ({ ...r }));
  }

  /** Decides what happens to one call to `endpoint`, consuming `times` of the rules applied. */
  plan(endpoint: string): FaultPlan {
    const plan: FaultPlan = { latencyMs: 0 };
    for (const rule of this.rules) {
      if (rule.endpoint !== undefined && rule.endpoint !== endpoint) continue;
      if (rule.kind !== 'latency' && plan.outcome) continue;
      if ((rule.rate ?? 1) < 1 && this.random() >= (rule.rate ?? 1)) continue;
      rule.applied++;
      if (rule.kind === 'latency') plan.latencyMs += rule.latencyMs ?? 0;
      else if (rule.kind === 'error') plan.outcome = { kind: 'error', status: rule.status ?? 503 };
      else plan.outcome = { kind: 'drop-response' };
    }
    this.rules = this.rules.filter((r) => r.times === undefined || r.applied < r.times);
    return plan;
  }
}

export class InvalidFaultError extends Error {
  override readonly name = 'InvalidFaultError';
}

function validateRule(rule: FaultRule): void {
  if (!['error', 'latency', 'drop-response'].includes(rule.kind)) {
    throw new InvalidFaultError(`fault kind must be "error", "latency" or "drop-response", got ${JSON.stringify(rule.kind)}`);
  }
  if (rule.status !== undefined && (!Number.isInteger(rule.status) || rule.status < 400 || rule.status > 599)) {
    throw new InvalidFaultError(`fault status must be an HTTP error status (400-599), got ${rule.status}`);
  }
  if (rule.kind === 'latency' && (typeof rule.latencyMs !== 'number' || rule.latencyMs < 0)) {
    throw new InvalidFaultError('a latency fault needs latencyMs >= 0');
  }
  if (rule.rate !== undefined && (typeof rule.rate !== 'number' || rule.rate < 0 || rule.rate > 1)) {
    throw new InvalidFaultError(`fault rate must be between 0 and 1, got ${rule.rate}`);
  }
  if (rule.times !== undefined && (!Number.isInteger(rule.times) || rule.times < 1)) {
    throw new InvalidFaultError(`fault times must be a positive integer, got ${rule.times}`);
  }
}
