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

/** `systemUnits` container by container (the emulator's `byContainer` minus the harness's own). */
export function systemUnitsByContainer(
  before: CounterSnapshot,
  after: CounterSnapshot,
  harnessBefore: UnitsByContainer,
  harnessAfter: UnitsByContainer,
): UnitsByContainer {
  const out: UnitsByContainer = {};
  for (const [container, counted] of Object.entries(after.byContainer ?? {})) {
    const was = before.byContainer?.[container]?.requestUnits ?? {};
    const units: UnitsByKind = {};
    for (const [kind, value] of Object.entries(counted.requestUnits) as Array<[RequestUnitKind, number]>) {
      const harness = (harnessAfter[container]?.[kind] ?? 0) - (harnessBefore[container]?.[kind] ?? 0);
      const mine = value - ((was as UnitsByKind)[kind] ?? 0) - harness;
      if (mine > 0.005) units[kind] = mine;
    }
    if (Object.keys(units).length > 0) out[container] = units;
  }
  return out;
}

/** Requests the system sent between two readings, by container and kind (the emulator's minus the harness's own). */
export function systemRequestsByContainer(
  before: CounterSnapshot,
  after: CounterSnapshot,
  harnessBefore: UnitsByContainer,
  harnessAfter: UnitsByContainer,
): UnitsByContainer {
  const out: UnitsByContainer = {};
  for (const [container, counted] of Object.entries(after.byContainer ?? {})) {
    const was: UnitsByKind = before.byContainer?.[container]?.requests ?? {};
    const requests: UnitsByKind = {};
    for (const [kind, value] of Object.entries(counted.requests) as Array<[RequestUnitKind, number]>) {
      const harness = (harnessAfter[container]?.[kind] ?? 0) - (harnessBefore[container]?.[kind] ?? 0);
      const mine = value - (was[kind] ?? 0) - harness;
      if (mine > 0) requests[kind] = mine;
    }
    if (Object.keys(requests).length > 0) out[container] = requests;
  }
  return out;
}
