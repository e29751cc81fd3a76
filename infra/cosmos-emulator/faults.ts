import { badRequest } from './errors';
import { REQUEST_KINDS, RequestKind } from './counters';
import { isJsonObject } from './types';

/**
 * Fault injection. A rule matches requests (optionally by method, path regex and request kind) and
 * then, in this order: adds latency, drops the connection with probability `dropRate`, answers 429
 * (with `x-ms-retry-after-ms`) with probability `throttleRate`, answers 503 with probability
 * `unavailableRate`. `count` caps how many requests the rule affects; after that it is spent.
 * The first matching live rule decides. Admin calls are never faulted.
 */
export interface FaultRule {
  /** Probability 0…1 of a 429 answer. */
  throttleRate?: number;
  /** `x-ms-retry-after-ms` sent with 429s. @defaultValue 10 */
  retryAfterMs?: number;
  /** Probability 0…1 of a 503 answer. */
  unavailableRate?: number;
  /** Probability 0…1 of destroying the connection without an answer. */
  dropRate?: number;
  /** Milliseconds added before the request is handled. */
  latencyMs?: number;
  /** Only requests with this HTTP method (case-insensitive). */
  method?: string;
  /** Only requests whose path matches this regular expression. */
  path?: string;
  /** Only these kinds of requests. */
  kinds?: RequestKind[];
  /** Affect at most this many requests, then stop. */
  count?: number;
}

export type FaultDecision =
  | { action: 'none'; latencyMs: number }
  | { action: 'drop'; latencyMs: number }
  | { action: 'throttle'; latencyMs: number; retryAfterMs: number }
  | { action: 'unavailable'; latencyMs: number };

interface LiveRule {
  rule: FaultRule;
  pathRe?: RegExp;
  remaining: number;
}

const RATE_FIELDS = ['throttleRate', 'unavailableRate', 'dropRate'] as const;

export function parseFaultRules(input: unknown): FaultRule[] {
  const list = Array.isArray(input) ? input : isJsonObject(input) && Array.isArray(input.rules) ? input.rules : [input];
  return list.map((raw: unknown, i: number): FaultRule => {
    if (!isJsonObject(raw)) throw badRequest(`Fault rule ${i} must be an object.`);
    const rule: FaultRule = {};
    for (const f of RATE_FIELDS) {
      const v = raw[f];
      if (v === undefined) continue;
      if (typeof v !== 'number' || v < 0 || v > 1) throw badRequest(`Fault rule ${i}: ${f} must be a number between 0 and 1.`);
      rule[f] = v;
    }
    for (const f of ['retryAfterMs', 'latencyMs', 'count'] as const) {
      const v = raw[f];
      if (v === undefined) continue;
      if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw badRequest(`Fault rule ${i}: ${f} must be a non-negative number.`);
      rule[f] = v;
    }
    if (raw.method !== undefined) {
      if (typeof raw.method !== 'string') throw badRequest(`Fault rule ${i}: method must be a string.`);
      rule.method = raw.method.toUpperCase();
    }
    if (raw.path !== undefined) {
      if (typeof raw.path !== 'string') throw badRequest(`Fault rule ${i}: path must be a regular expression string.`);
      try {
        new RegExp(raw.path);
      } catch {
        throw badRequest(`Fault rule ${i}: path ${raw.path} is not a valid regular expression.`);
      }
      rule.path = raw.path;
    }
    if (raw.kinds !== undefined) {
      const kinds = raw.kinds;
      if (
        !Array.isArray(kinds) ||
        !kinds.every((k): k is RequestKind => typeof k === 'string' && (REQUEST_KINDS as readonly string[]).includes(k))
      ) {
        throw badRequest(`Fault rule ${i}: kinds must be a subset of ${REQUEST_KINDS.join(', ')}.`);
      }
      rule.kinds = kinds;
    }
    return rule;
  });
}

export class Faults {
  private rules: LiveRule[] = [];

  constructor(private readonly random: () => number = Math.random) {}

  set(rules: FaultRule[]): void {
    this.rules = rules.map((rule) => ({ rule, pathRe: rule.path ? new RegExp(rule.path) : undefined, remaining: rule.count ?? Infinity }));
  }

  clear(): void {
    this.rules = [];
  }

  list(): FaultRule[] {
    return this.rules
      .filter((r) => r.remaining > 0)
      .map((r) => ({ ...r.rule, count: Number.isFinite(r.remaining) ? r.remaining : undefined }));
  }

  decide(method: string, path: string, kind: RequestKind): FaultDecision {
    for (const live of this.rules) {
      const { rule } = live;
      if (live.remaining <= 0) continue;
      if (rule.method && rule.method !== method.toUpperCase()) continue;
      if (live.pathRe && !live.pathRe.test(path)) continue;
      if (rule.kinds && !rule.kinds.includes(kind)) continue;
      const latencyMs = rule.latencyMs ?? 0;
      let decision: FaultDecision = { action: 'none', latencyMs };
      if (rule.dropRate && this.random() < rule.dropRate) decision = { action: 'drop', latencyMs };
      else if (rule.throttleRate && this.random() < rule.throttleRate)
        decision = { action: 'throttle', latencyMs, retryAfterMs: rule.retryAfterMs ?? 10 };
      else if (rule.unavailableRate && this.random() < rule.unavailableRate) decision = { action: 'unavailable', latencyMs };
      if (decision.action !== 'none' || latencyMs > 0) {
        live.remaining--;
        return decision;
      }
    }
    return { action: 'none', latencyMs: 0 };
  }
}
