/**
 * Fault injection (admin `PUT /faults`). A rule applies to operations (optionally only on entities whose
 * name matches `entity`, a regular expression) and is spent after `count` uses:
 * - `server-busy`: sends (and management requests) are refused with `com.microsoft:server-busy`,
 *   which the SDK retries;
 * - `refuse-send`: sends are refused with `condition` (default `amqp:resource-limit-exceeded`, "quota exceeded");
 * - `latency`: `latencyMs` is added before a send is acknowledged or a message is delivered;
 * - `drop-connection`: the next operation's TCP connection is destroyed without a close frame.
 * `probability` (0…1, default 1) makes a rule apply to that share of operations.
 */
export type FaultKind = 'server-busy' | 'refuse-send' | 'latency' | 'drop-connection';
export const FAULT_KINDS: readonly FaultKind[] = ['server-busy', 'refuse-send', 'latency', 'drop-connection'];

export interface FaultRule {
  kind: FaultKind;
  entity?: string;
  count?: number;
  probability?: number;
  latencyMs?: number;
  condition?: string;
  description?: string;
}

export type FaultOperation = 'send' | 'receive' | 'management';

export class FaultRuleError extends Error {}

export function parseFaultRules(input: unknown): FaultRule[] {
  const raw = Array.isArray(input)
    ? input
    : typeof input === 'object' && input !== null && Array.isArray((input as { rules?: unknown }).rules)
      ? (input as { rules: unknown[] }).rules
      : [input];
  return raw.map((r: unknown, i: number) => {
    if (typeof r !== 'object' || r === null) throw new FaultRuleError(`rule ${i} must be an object`);
    const o = r as Record<string, unknown>;
    if (typeof o.kind !== 'string' || !(FAULT_KINDS as readonly string[]).includes(o.kind))
      throw new FaultRuleError(`rule ${i}: kind must be one of ${FAULT_KINDS.join(', ')}`);
    const rule: FaultRule = { kind: o.kind as FaultKind };
    if (o.entity !== undefined) {
      if (typeof o.entity !== 'string') throw new FaultRuleError(`rule ${i}: entity must be a regular expression string`);
      try {
        new RegExp(o.entity, 'i');
      } catch {
        throw new FaultRuleError(`rule ${i}: entity is not a valid regular expression`);
      }
      rule.entity = o.entity;
    }
    for (const f of ['count', 'latencyMs', 'probability'] as const) {
      const v = o[f];
      if (v === undefined) continue;
      if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || (f === 'probability' && v > 1))
        throw new FaultRuleError(`rule ${i}: ${f} must be a non-negative number${f === 'probability' ? ' up to 1' : ''}`);
      rule[f] = v;
    }
    for (const f of ['condition', 'description'] as const) {
      const v = o[f];
      if (v === undefined) continue;
      if (typeof v !== 'string') throw new FaultRuleError(`rule ${i}: ${f} must be a string`);
      rule[f] = v;
    }
    if (rule.kind === 'latency' && rule.latencyMs === undefined) throw new FaultRuleError(`rule ${i}: latency needs latencyMs`);
    return rule;
  });
}

interface Live {
  rule: FaultRule;
  re?: RegExp;
  remaining: number;
}

const APPLIES: Record<FaultKind, FaultOperation[]> = {
  'server-busy': ['send', 'management'],
  'refuse-send': ['send'],
  latency: ['send', 'receive'],
  'drop-connection': ['send', 'receive', 'management'],
};

export class Faults {
  private rules: Live[] = [];
  constructor(private readonly random: () => number = Math.random) {}

  set(rules: FaultRule[]): void {
    this.rules = rules.map((rule) => ({
      rule,
      re: rule.entity ? new RegExp(rule.entity, 'i') : undefined,
      remaining: rule.count ?? Infinity,
    }));
  }
  clear(): void {
    this.rules = [];
  }
  list(): FaultRule[] {
    return this.rules
      .filter((r) => r.remaining > 0)
      .map((r) => ({ ...r.rule, count: Number.isFinite(r.remaining) ? r.remaining : undefined }));
  }
  get active(): boolean {
    return this.rules.length > 0;
  }

  /** The faults that hit this operation (at most one per kind), each use counted. */
  decide(op: FaultOperation, entity: string): FaultRule[] {
    if (!this.rules.length) return [];
    const hit: FaultRule[] = [];
    const kinds = new Set<FaultKind>();
    for (const live of this.rules) {
      if (live.remaining <= 0 || kinds.has(live.rule.kind) || !APPLIES[live.rule.kind].includes(op)) continue;
      if (live.re && !live.re.test(entity)) continue;
      if (live.rule.probability !== undefined && this.random() >= live.rule.probability) continue;
      live.remaining--;
      kinds.add(live.rule.kind);
      hit.push(live.rule);
    }
    return hit;
  }
}
