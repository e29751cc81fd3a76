/**
 * Request units the system under test was charged between two readings: the emulator's counters
 * (everything charged on its endpoint) minus the harness's own (frontend writes, reading results).
 */
import type { CounterSnapshot, RequestUnitSnapshot } from '@opstream/cosmos-emulator';
import type { RequestUnitKind } from './counting-cosmos-client';

export type UnitsByKind = Partial<Record<RequestUnitKind, number>>;

export function systemUnits(
  before: CounterSnapshot,
  after: CounterSnapshot,
  harnessBefore: UnitsByKind,
  harnessAfter: UnitsByKind,
): UnitsByKind {
  const out: UnitsByKind = {};
  for (const kind of Object.keys(after.requestUnits) as Array<keyof RequestUnitSnapshot>) {
    const emulator = after.requestUnits[kind] - (before.requestUnits?.[kind] ?? 0);
    const harness = (harnessAfter[kind] ?? 0) - (harnessBefore[kind] ?? 0);
    const value = Math.max(0, emulator - harness);
    if (value > 0) out[kind] = value;
  }
  return out;
}

/** The same figures divided by `n` (operations, seconds). */
export function per(units: UnitsByKind, n: number): UnitsByKind {
  const out: UnitsByKind = {};
  for (const [kind, value] of Object.entries(units)) out[kind as RequestUnitKind] = n > 0 ? (value as number) / n : NaN;
  return out;
}

export type UnitsByContainer = Record<string, UnitsByKind>;

/** `per`, container by container. */
export function perContainer(units: UnitsByContainer, n: number): UnitsByContainer {
  return Object.fromEntries(Object.entries(units).map(([container, u]) => [container, per(u, n)]));
}

/** `systemUnits` container by container (the emulator's `byContainer` minus the harness's own). */
export function systemUnitsByContainer(
  before: CounterSnapshot,
  after: CounterSnapshot,
  harnessBefore: UnitsByContainer,
  harnessAfter: UnitsByContainer,
): UnitsByContainer {
  return byContainer('requestUnits', before, after, harnessBefore, harnessAfter);
}

/** Requests the system sent between two readings, by container and kind (the emulator's minus the harness's own). */
export function systemRequestsByContainer(
  before: CounterSnapshot,
  after: CounterSnapshot,
  harnessBefore: UnitsByContainer,
  harnessAfter: UnitsByContainer,
): UnitsByContainer {
  return byContainer('requests', before, after, harnessBefore, harnessAfter);
}

/** One of the emulator's per-container counters between two readings, minus the harness's own; traces of rounding dropped. */
function byContainer(
  counter: 'requests' | 'requestUnits',
  before: CounterSnapshot,
  after: CounterSnapshot,
  harnessBefore: UnitsByContainer,
  harnessAfter: UnitsByContainer,
): UnitsByContainer {
  const out: UnitsByContainer = {};
  for (const [container, counted] of Object.entries(after.byContainer ?? {})) {
    const was: UnitsByKind = before.byContainer?.[container]?.[counter] ?? {};
    const mine: UnitsByKind = {};
    for (const [kind, value] of Object.entries(counted[counter]) as Array<[RequestUnitKind, number]>) {
      const harness = (harnessAfter[container]?.[kind] ?? 0) - (harnessBefore[container]?.[kind] ?? 0);
      const delta = value - (was[kind] ?? 0) - harness;
      if (delta > 0.005) mine[kind] = delta;
    }
    if (Object.keys(mine).length > 0) out[container] = mine;
  }
  return out;
}
