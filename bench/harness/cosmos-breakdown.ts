/**
 * Where an operation's Cosmos requests go, from opstream's own traces: every Cosmos request made
 * within a handling is a client span (src/app/cosmos-client.ts) under the handling's `reconcile …`
 * span, which names the operation. Each request is put in one bucket per workload step: the spans
 * between the handling and the request (write-back, acquire subscription lock, ARM notification …),
 * the container and what was asked (read, replace, create, delete, query). Requests outside any
 * handling (change-feed polls, lease upkeep, the balancer's listings) make no span: they are the
 * difference between the emulator's count and the spans'.
 */
import type { ReceivedSpan } from '@opstream/otlp-receiver';

const OPERATION_ID = 'opstream.operation.id';
const COLLECTION = 'db.collection.name';
const DB_SYSTEM = 'db.system.name';
const CHARGE = 'azure.cosmosdb.operation.request_charge';

interface PurposeCount {
  readonly requests: number;
  readonly requestUnits: number;
}

export interface StepCosmos {
  readonly operations: number;
  /** Handlings (looks) per operation. */
  readonly handlingsPerOp: number;
  /** Requests and RU per operation by purpose, most first. */
  readonly byPurpose: Record<string, PurposeCount>;
  readonly requestsPerOp: number;
  readonly requestUnitsPerOp: number;
}

/** Cosmos requests per operation by step and purpose; `stepOf` maps an operation id to its step (undefined: not measured). */
export function cosmosBreakdown(
  spans: readonly ReceivedSpan[],
  stepOf: (operationId: string) => string | undefined,
  operationsPerStep: Record<string, number>,
): Record<string, StepCosmos> {
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  const raw: Record<string, { handlings: number; purposes: Map<string, { requests: number; requestUnits: number }> }> = {};
  const stepBucket = (step: string) => (raw[step] ??= { handlings: 0, purposes: new Map() });
  for (const s of spans) {
    const id = s.attributes[OPERATION_ID];
    if (typeof id === 'string' && s.name.startsWith('reconcile ')) {
      const step = stepOf(id);
      if (step) stepBucket(step).handlings++;
    }
    if (s.attributes[DB_SYSTEM] !== 'azure.cosmosdb') continue;
    const path: string[] = [];
    let step: string | undefined;
    let found = false;
    for (let p = s.parentSpanId ? byId.get(s.parentSpanId) : undefined; p; p = p.parentSpanId ? byId.get(p.parentSpanId) : undefined) {
      const opId = p.attributes[OPERATION_ID];
      if (typeof opId === 'string' && p.name.startsWith('reconcile ')) {
        step = stepOf(opId);
        found = true;
        break;
      }
      path.unshift(p.name);
    }
    if (!found || !step) continue;
    const purpose = `${path.length > 0 ? `${path.join(' › ')}: ` : ''}${String(s.attributes[COLLECTION] ?? '?')} ${s.name}`;
    const b = stepBucket(step).purposes;
    const c = b.get(purpose) ?? { requests: 0, requestUnits: 0 };
    c.requests++;
    const charge = Number(s.attributes[CHARGE] ?? 0);
    c.requestUnits += Number.isFinite(charge) ? charge : 0;
    b.set(purpose, c);
  }
  const out: Record<string, StepCosmos> = {};
  for (const [step, n] of Object.entries(operationsPerStep)) {
    const r = raw[step] ?? { handlings: 0, purposes: new Map() };
    const sorted = [...r.purposes.entries()].sort((a, b) => b[1].requests - a[1].requests);
    const byPurpose: Record<string, PurposeCount> = {};
    for (const [purpose, c] of sorted) byPurpose[purpose] = { requests: c.requests / n, requestUnits: c.requestUnits / n };
    out[step] = {
      operations: n,
      handlingsPerOp: r.handlings / n,
      byPurpose,
      requestsPerOp: sorted.reduce((sum, [, c]) => sum + c.requests, 0) / n,
      requestUnitsPerOp: sorted.reduce((sum, [, c]) => sum + c.requestUnits, 0) / n,
    };
  }
  return out;
}

/**
 * One operation's handlings as indented span trees (handling → write-back → Cosmos request …), in
 * time order: what each look did, for reading alongside the counts.
 */
export function operationTrace(spans: readonly ReceivedSpan[], operationId: string): string[] {
  const children = new Map<string, ReceivedSpan[]>();
  for (const s of spans) if (s.parentSpanId) children.set(s.parentSpanId, [...(children.get(s.parentSpanId) ?? []), s]);
  const roots = spans
    .filter((s) => s.name.startsWith('reconcile ') && s.attributes[OPERATION_ID] === operationId)
    .sort((a, b) => a.startTimeMs - b.startTimeMs);
  const t0 = roots[0]?.startTimeMs ?? 0;
  const lines: string[] = [];
  const walk = (s: ReceivedSpan, depth: number): void => {
    const a = s.attributes;
    const detail =
      a[DB_SYSTEM] === 'azure.cosmosdb'
        ? ` ${String(a[COLLECTION] ?? '')} → ${String(a['db.response.status_code'] ?? '')}`
        : a['opstream.outcome.note'] !== undefined
          ? ` (${String(a['opstream.outcome.note'])})`
          : '';
    lines.push(`${'  '.repeat(depth)}+${Math.round(s.startTimeMs - t0)} ms ${s.name}${detail}`);
    for (const c of (children.get(s.spanId) ?? []).sort((x, y) => x.startTimeMs - y.startTimeMs)) walk(c, depth + 1);
  };
  for (const r of roots) walk(r, 0);
  return lines;
}

/** Plain-text lines of `cosmosBreakdown`: per step its totals, then each purpose. */
export function cosmosBreakdownLines(breakdown: Record<string, StepCosmos>): string[] {
  const lines: string[] = [];
  for (const [step, b] of Object.entries(breakdown)) {
    lines.push(
      `${step}: ${b.requestsPerOp.toFixed(2)} requests, ${b.requestUnitsPerOp.toFixed(1)} RU, ${b.handlingsPerOp.toFixed(2)} handlings per operation`,
    );
    for (const [purpose, c] of Object.entries(b.byPurpose))
      lines.push(`  ${c.requests.toFixed(2)} req  ${c.requestUnits.toFixed(1).padStart(6)} RU  ${purpose}`);
  }
  return lines;
}
