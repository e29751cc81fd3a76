/**
 * Where the Clusters Service calls of each workload step come from, from the simulator's call log:
 * each call about an operation's resource while the operation ran is put in one bucket by what it
 * is and when it came relative to the call that started the CS work (POST / PATCH / DELETE) and to
 * the instant CS reached its final state. A shared status read (`search=id in (…)`) lists several
 * clusters: it is split evenly between the running operations it listed, so the buckets add up to
 * the calls made. What triggered a read (an event, the learned first check, a follow tick) is not
 * in the log; the timing tells them apart well enough: with events, the read that ends an operation
 * comes right after CS is done, without them on the first check or a tick.
 */
import type { WrittenOperation } from '@opstream/frontend-simulator';
import { resourceKeyOf, type CallLog, type LoggedCall } from './call-log';
import type { OperationOutcome, OperationTiming } from './op-timing';

type ReadBucket =
  | 'mutation'
  | 'dispatch search'
  | 'read before the mutation'
  | 'read while CS works'
  | 'read after CS is done'
  | 'search after the end'
  | 'other';

export type StepBreakdown = Partial<Record<ReadBucket, number>> & { operations: number };

interface Running {
  readonly step: string;
  readonly op: WrittenOperation;
  readonly key: string;
  readonly from: number;
  readonly to: number;
  readonly timing: OperationTiming;
}

function bucketOf(call: LoggedCall, r: Running): ReadBucket {
  if (call.action === 'create' || call.action === 'update' || call.action === 'delete') return 'mutation';
  const started = r.timing.startedAt;
  const shared = call.keys !== undefined;
  if (started === undefined) return 'other';
  if (call.at < started) return call.action === 'search' && !shared ? 'dispatch search' : 'read before the mutation';
  if (call.action === 'search' && !shared) return 'search after the end';
  const done = r.timing.csDoneAt;
  return done !== undefined && call.at >= done ? 'read after CS is done' : 'read while CS works';
}

/** Calls per operation by step and bucket (shared reads split between the operations they served). */
export function readBreakdown(
  log: CallLog,
  written: ReadonlyArray<{ op: WrittenOperation; step: string }>,
  outcomes: readonly OperationOutcome[],
  timings: readonly OperationTiming[],
): Record<string, StepBreakdown> {
  const running: Running[] = written.map((w, i) => ({
    step: w.step,
    op: w.op,
    key: resourceKeyOf(w.op.externalId),
    from: w.op.writtenAt,
    to: outcomes[i].terminalAt ?? Infinity,
    timing: timings[i],
  }));
  const out: Record<string, StepBreakdown> = {};
  for (const r of running) (out[r.step] ??= { operations: 0 }).operations++;
  for (const call of log.calls) {
    const keys = call.keys ?? (call.key ? [call.key] : []);
    const served = running.filter((r) => keys.includes(r.key) && call.at >= r.from && call.at <= r.to);
    for (const r of served) {
      const b = out[r.step];
      const bucket = bucketOf(call, r);
      b[bucket] = (b[bucket] ?? 0) + 1 / served.length;
    }
  }
  for (const b of Object.values(out)) {
    for (const k of Object.keys(b) as Array<keyof StepBreakdown>) if (k !== 'operations') b[k] = (b[k] ?? 0) / b.operations;
  }
  return out;
}

/** A plain-text table of `readBreakdown`, one line per step. */
export function breakdownLines(breakdown: Record<string, StepBreakdown>): string[] {
  const buckets: ReadBucket[] = [
    'mutation',
    'dispatch search',
    'read before the mutation',
    'read while CS works',
    'read after CS is done',
    'search after the end',
    'other',
  ];
  const lines = [`step | ops | ${buckets.join(' | ')} | all`];
  for (const [step, b] of Object.entries(breakdown)) {
    const all = buckets.reduce((sum, k) => sum + (b[k] ?? 0), 0);
    lines.push(`${step} | ${b.operations} | ${buckets.map((k) => (b[k] ?? 0).toFixed(2)).join(' | ')} | ${all.toFixed(2)}`);
  }
  return lines;
}
