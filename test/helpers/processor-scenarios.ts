import { isTerminalError } from '../../src/domain/errors';
import { parseArmResourceId } from '../../src/domain/ids';
import type { OperationStatus, Resource } from '../../src/domain/types';
import { PIPELINE_EVENTS } from '../../src/pipeline/events';
import type { CsFault, CsMethod } from './scripted-clusters-service';
import { FOLLOW, SUPERSEDED_CREATE, clusterArmId, csClusterHref, type Handling, type ProcessorWorld } from './processor-kit';

/**
 * The expectation side of the processor scenario tables: what a handling returned, the documents
 * after it, and the Clusters Service calls it made. The CS id a cluster create chooses at random
 * (32 hex digits) reads `<chosen>` in calls, hrefs and ids, so rows can name it; the ids rows seed
 * are short names.
 */
export const CHOSEN = '<chosen>';

type ExpectedOutcome =
  /** Look again after exactly this many ms. */
  | { readonly again: number }
  /** Look again after a delay within [min, max] ms. */
  | { readonly againWithin: readonly [number, number] }
  /** The operation was just written terminal: again at once, to notify ARM (`ended`). */
  | { readonly notify: true }
  /** The handling threw (the queue retries it, or dead-letters a terminal error). */
  | { readonly throws: abstract new (...args: never[]) => Error }
  /** The handling threw an error no retry can fix (`isTerminalError`): dead-lettered at once. */
  | { readonly throwsTerminal: true };

export interface ExpectedOperation {
  readonly status: OperationStatus;
  /** `''` = none recorded. */
  readonly internalId?: string;
  /** `null` = no error on the document. */
  readonly error?: { readonly code: string; readonly message?: RegExp } | null;
}

interface ExpectedResource {
  readonly provisioningState?: OperationStatus;
  readonly internalId?: string;
  /** `null` = none chosen. */
  readonly pendingInternalId?: string | null;
  readonly activeOperationId?: string;
}

export interface Expected {
  readonly outcome: ExpectedOutcome;
  readonly op?: ExpectedOperation;
  /** Other operations of the resource afterwards, by id (superseded ones, say). */
  readonly others?: Readonly<Record<string, ExpectedOperation>>;
  readonly resource?: ExpectedResource | 'deleted';
  /** Calls that reached Clusters Service, in order, as `method target`. */
  readonly calls: readonly string[];
  /** Ids of the clusters Clusters Service holds under the resource's ARM name afterwards (any order). */
  readonly held?: readonly string[];
  /** Status changes written, in order, as `operation: from → to` (none written: `[]`). */
  readonly transitions?: readonly string[];
  /** Subscription locks taken (a write-back that would change nothing takes none). */
  readonly locks?: number;
}

/** A look the status follow paces: again within its initial and its longest delay. */
export const LOOK_AGAIN = { againWithin: [FOLLOW.initialDelayMs, FOLLOW.maxDelayMs] } as const;

type Documents = Pick<Expected, 'op' | 'resource' | 'transitions'>;

/** `op-1` still at `status` and still its Resource's active operation: nothing written. */
export function stays(status: OperationStatus): Documents {
  return {
    op: { status, error: null },
    resource: { provisioningState: status, activeOperationId: 'op-1' },
    transitions: [],
  };
}

/** As `stays`, and no subscription lock taken (a write-back that would change nothing takes none). */
export function unchanged(status: OperationStatus): Documents & Pick<Expected, 'locks'> {
  return { ...stays(status), locks: 0 };
}

/** `op-1` moved from `from` to `to` and goes on: still its Resource's active operation. */
export function moved(from: OperationStatus, to: OperationStatus): Documents {
  return {
    op: { status: to, error: null },
    resource: { provisioningState: to, activeOperationId: 'op-1' },
    transitions: [`op-1: ${from} → ${to}`],
  };
}

/** `op-1` ended from `from` in `to` (with `error`, or none): its Resource has no active operation. */
export function ended(from: OperationStatus, to: OperationStatus, error: ExpectedOperation['error'] = null): Documents {
  return {
    op: { status: to, error },
    resource: { provisioningState: to, activeOperationId: '' },
    transitions: [`op-1: ${from} → ${to}`],
  };
}

/** A Delete `op-1` still deleting its Resource. */
export const deleting: Pick<Expected, 'op' | 'resource'> = {
  op: { status: 'Deleting', error: null },
  resource: { provisioningState: 'Deleting', activeOperationId: 'op-1' },
};

/** A Delete `op-1` done: Succeeded and the Resource deleted; a superseded Create canceled before. */
export function deleteDone(superseded?: 'and the create canceled'): Documents {
  return {
    op: { status: 'Succeeded', error: null },
    resource: 'deleted',
    transitions: [...(superseded ? [`${SUPERSEDED_CREATE}: Provisioning → Canceled`] : []), 'op-1: Deleting → Succeeded'],
  };
}

/** A Create `op-1` not dispatched: still Accepted, no CS id on it or on its Resource. */
export const notDispatched: Pick<Expected, 'op' | 'resource'> = {
  op: { status: 'Accepted', internalId: '' },
  resource: { internalId: '' },
};

/** A Create `op-1` failed with `code` and `message` before anything was recorded: its Resource Failed and free. */
export function createFailed(code: string, message: RegExp): Pick<Expected, 'op' | 'resource'> {
  return {
    op: { status: 'Failed', internalId: '', error: { code, message } },
    resource: { provisioningState: 'Failed', activeOperationId: '', internalId: '' },
  };
}

/** The frontend wrote a Delete (`op-delete`) on the Resource `armId`: the Resource is now the Delete's. */
export function deleteTakesOver(armId: string): (w: ProcessorWorld) => void {
  return (w) => w.changeResource(armId, { activeOperationId: 'op-delete', provisioningState: 'Deleting' });
}

/** The parent cluster's Resource as `processorTestbed` seeds it, untouched: a node pool's or external auth's operation never writes it. */
export function expectParentUntouched(w: ProcessorWorld): void {
  expect(w.resource(clusterArmId())).toMatchObject({ internalId: csClusterHref(), provisioningState: 'Succeeded' });
}

/** One row of a processor's scenario table: its name (the test's), what happens meanwhile, what it expects. */
export interface ScenarioRow {
  readonly name: string;
  readonly faults?: Faults;
  readonly meanwhile?: Meanwhile;
  readonly expect: Expected;
}

/**
 * One test per row, named by it: the row's world (`given`), handled once with its faults and
 * meanwhile, checked against its expectations, `processor` being the one that must have run.
 */
export function itHandlesEach<R extends ScenarioRow>(
  rows: readonly R[],
  scenario: {
    given: (row: R) => ProcessorWorld;
    processor: string | ((row: R) => string);
    armId: string | ((row: R) => string);
    /** The row's expectations as checked (default: as the row states them). */
    expected?: (row: R) => Expected;
    /** What else the row's test checks afterwards. */
    then?: (w: ProcessorWorld, row: R) => void;
  },
): void {
  it.each([...rows])('$name', async (row) => {
    const w = scenario.given(row);
    const handling = await handleWith(w, row);
    const processor = typeof scenario.processor === 'string' ? scenario.processor : scenario.processor(row);
    const armId = typeof scenario.armId === 'string' ? scenario.armId : scenario.armId(row);
    expectHandled(w, handling, processor, armId, scenario.expected?.(row) ?? row.expect);
    scenario.then?.(w, row);
  });
}

/**
 * The status follow's table, one test per row: the processor is `<kind>-create-follow` or
 * `<kind>-update-follow` by the row's request. An Update's look reads the resource itself
 * (`reads[1]`: its desired state is compared) where a Create's reads its status (`reads[0]`): the
 * calls a row names with the status read are checked, for an Update, as that read.
 */
export function itFollowsEach<R extends ScenarioRow & { readonly request: 'Create' | 'Update' }>(
  rows: readonly R[],
  scenario: { given: (row: R) => ProcessorWorld; kind: string; armId: string; reads: readonly [string, string] },
): void {
  const [statusRead, updateRead] = scenario.reads;
  itHandlesEach(rows, {
    given: scenario.given,
    armId: scenario.armId,
    processor: (row) => `${scenario.kind}-${row.request.toLowerCase()}-follow`,
    expected: (row) =>
      row.request === 'Update' ? { ...row.expect, calls: row.expect.calls.map((c) => c.replace(statusRead, updateRead)) } : row.expect,
  });
}

/**
 * An Update's follow that finds the resource ready but not at its desired state, `updatingForMs` after
 * the dispatch's PATCH: one read (`read`), no PATCH within the cooldown, still Updating, the next look
 * once the cooldown is over.
 */
export async function expectWaitsOutTheCooldown(w: ProcessorWorld, read: string, updatingForMs: number): Promise<void> {
  const handling = await w.handle();
  const outcome = 'outcome' in handling ? handling.outcome : undefined;
  expect(w.cs.calls).toEqual([read]);
  expect(w.operation('op-1')?.status).toBe('Updating');
  expect(outcome).toMatchObject({ kind: 'again', afterMs: expect.any(Number) });
  expect(outcome?.kind === 'again' ? outcome.afterMs : 0).toBeGreaterThanOrEqual(FOLLOW.updateCooldownMs - updatingForMs);
}

/** What a handling that parked the operation returned (when it did anything else: an error saying `what`). */
export function parked(handling: Handling, what = 'the look'): { readonly afterMs: number; readonly note: string } {
  if (!('outcome' in handling) || handling.outcome.kind !== 'again') throw new Error(`${what} did not park the operation`);
  return { afterMs: handling.outcome.afterMs, note: handling.outcome.note ?? '' };
}

/** One look at `operationId` that must park it; the clock then moves on to when it asked to look again. */
export async function lookAndWait(w: ProcessorWorld, operationId = 'op-1'): Promise<{ readonly afterMs: number; readonly note: string }> {
  const look = parked(await w.handle(operationId), `the look at ${operationId}`);
  w.clock.advance(look.afterMs);
  return look;
}

/** Something that happens while the handling runs. */
export interface Meanwhile {
  /** After the handling read its documents, before the processor runs. */
  readonly afterRead?: (w: ProcessorWorld) => void;
  /** When this CS call arrives, before CS acts on it. */
  readonly during?: readonly [CsMethod, (w: ProcessorWorld) => void | Promise<void>];
}

export type Faults = ReadonlyArray<readonly [CsMethod, CsFault]>;

/** Scripts the faults and the meanwhile of a row, then handles the operation once. */
export async function handleWith(
  w: ProcessorWorld,
  row: { faults?: Faults; meanwhile?: Meanwhile },
  operationId = 'op-1',
): Promise<Handling> {
  for (const [method, fault] of row.faults ?? []) w.cs.fail(method, fault, { reason: `CS says no (${fault})` });
  const during = row.meanwhile?.during;
  if (during) w.cs.during(during[0], () => during[1](w));
  const afterRead = row.meanwhile?.afterRead;
  return w.handle(operationId, afterRead ? { afterRead: () => afterRead(w) } : {});
}

/** Checks a handling against a row's expectations (the processor that ran included). */
export function expectHandled(w: ProcessorWorld, handling: Handling, processor: string, armId: string, expected: Expected): void {
  expect(handling.processor).toBe(processor);
  expectOutcome(handling, expected.outcome);
  if (expected.op) expectOperation(w, 'op-1', expected.op);
  for (const [id, op] of Object.entries(expected.others ?? {})) expectOperation(w, id, op);
  if (expected.resource === 'deleted') expect(w.resource(armId)).toBeUndefined();
  else if (expected.resource) expectResource(w.resource(armId), expected.resource);
  expect(w.cs.calls.map(normal)).toEqual(expected.calls);
  if (expected.transitions) expect(transitionsOf(w)).toEqual(expected.transitions);
  if (expected.locks !== undefined) expect(w.locks.taken).toHaveLength(expected.locks);
  if (expected.held) {
    const arm = parseArmResourceId(armId);
    const held = w.cs.clustersNamed({
      subscriptionId: arm.subscriptionId,
      resourceGroupName: arm.resourceGroupName,
      resourceName: arm.clusterName,
    });
    expect(held.map((c) => normal(c.id)).sort()).toEqual([...expected.held].sort());
  }
}

function expectOutcome(handling: Handling, expected: ExpectedOutcome): void {
  if ('throwsTerminal' in expected) {
    expect('error' in handling && isTerminalError(handling.error)).toBe(true);
    return;
  }
  if ('throws' in expected) {
    expect('error' in handling ? handling.error : handling.outcome).toBeInstanceOf(expected.throws);
    return;
  }
  if ('error' in handling) throw handling.error;
  const { outcome } = handling;
  if ('notify' in expected) {
    expect(outcome).toEqual({ kind: 'again', afterMs: 0, note: expect.stringMatching(/: notify$/) });
  } else if ('again' in expected) {
    expect(outcome).toMatchObject({ kind: 'again', afterMs: expected.again });
    expect(outcome.kind === 'failed' ? '' : (outcome.note ?? '')).not.toMatch(/: notify$/);
  } else {
    const [min, max] = expected.againWithin;
    expect(outcome.kind).toBe('again');
    const afterMs = outcome.kind === 'again' ? outcome.afterMs : NaN;
    expect(afterMs).toBeGreaterThanOrEqual(min);
    expect(afterMs).toBeLessThanOrEqual(max);
  }
}

function expectOperation(w: ProcessorWorld, id: string, expected: ExpectedOperation): void {
  const op = w.operation(id);
  if (!op) throw new Error(`operation ${id} is gone`);
  const actual: Record<string, unknown> = { status: op.status };
  const want: Record<string, unknown> = { status: expected.status };
  if (expected.internalId !== undefined) {
    actual.internalId = normal(op.internalId ?? '');
    want.internalId = expected.internalId;
  }
  if (expected.error !== undefined) {
    actual.error = op.error ? { code: op.error.code, message: op.error.message } : null;
    want.error = expected.error
      ? { code: expected.error.code, message: expected.error.message ? expect.stringMatching(expected.error.message) : expect.any(String) }
      : null;
  }
  expect({ id, ...actual }).toEqual({ id, ...want });
}

function expectResource(resource: Resource | undefined, expected: ExpectedResource): void {
  if (!resource) throw new Error('the resource document is gone');
  const pick: Record<string, unknown> = {};
  if (expected.provisioningState !== undefined) pick.provisioningState = resource.provisioningState;
  if (expected.internalId !== undefined) pick.internalId = normal(resource.internalId ?? '');
  if (expected.pendingInternalId !== undefined)
    pick.pendingInternalId = resource.pendingInternalId ? normal(resource.pendingInternalId) : null;
  if (expected.activeOperationId !== undefined) pick.activeOperationId = resource.activeOperationId ?? '';
  expect(pick).toEqual({ ...expected });
}

/** The status changes written so far, as `operation: from → to`. */
function transitionsOf(w: ProcessorWorld): string[] {
  return w.emitted.flatMap((e) =>
    e.type === PIPELINE_EVENTS.operationTransitioned ? [`${e.operation.operationId}: ${e.previousStatus} → ${e.operation.status}`] : [],
  );
}

/** `s` with every randomly chosen CS id written `<chosen>`. */
export function normal(s: string): string {
  return s.replace(/\b[0-9a-f]{32}\b/g, CHOSEN);
}
