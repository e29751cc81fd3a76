import { ClustersServiceServerError } from '../../../../src/clusters-service';
import { TerminalError } from '../../../../src/domain/errors';
import {
  CS_EVENTS_FOLLOW_DELAY_MS,
  FIRST_CHECK_MS,
  LeaseMoved,
  ProcessorWorld,
  SETTINGS,
  SUPERSEDED_CREATE,
  clusterArmId,
  csCluster,
  csClusterHref,
  csNodePoolHref,
  nodePoolArmId,
  nodePoolResource,
  processorTestbed,
  supersededCreate,
} from '../../../helpers/processor-kit';
import { deleteDone, deleting, itHandlesEach, lookAndWait, type ScenarioRow } from '../../../helpers/processor-scenarios';
import type { ClusterSeed } from '../../../helpers/scripted-clusters-service';

/**
 * cluster-delete (processors/cluster/delete.ts), decided afresh from the documents and CS on every
 * look. Every row has a Delete `op-1` (Deleting, started a minute ago, past the create-settle window)
 * of cluster `c1`, whose Resource it is the active operation of, with CS id `cs1` on the Resource;
 * rows change the ids, what CS holds, and add a superseded Create or node pool documents.
 */
const ARM_ID = clusterArmId();
const href = (id: string): string => csClusterHref(id);
const CREATE = SUPERSEDED_CREATE;

interface Row extends ScenarioRow {
  /** CS ids on the documents (default: `cs1` on the Resource only). */
  readonly ids?: { readonly resource?: string; readonly op?: string; readonly pending?: string };
  readonly cs?: readonly ClusterSeed[];
  /** How long ago the Delete started (default one minute). */
  readonly startedAgoMs?: number;
  /** A Create still running on the resource, which the Delete supersedes. */
  readonly superseded?: true;
  /** A node pool document of the cluster. */
  readonly nodePool?: true;
  readonly resourceIsNodePool?: true;
}

function given(row: Omit<Row, keyof ScenarioRow>): ProcessorWorld {
  const ids = row.ids ?? { resource: href('cs1') };
  return processorTestbed({
    kind: 'cluster',
    request: 'Delete',
    startedAgoMs: row.startedAgoMs,
    op: { internalId: ids.op ?? '' },
    resource: { internalId: ids.resource ?? '', ...(ids.pending ? { pendingInternalId: ids.pending } : {}), provisioningState: 'Deleting' },
    documentKind: row.resourceIsNodePool ? 'node pool' : 'cluster',
    also: [
      ...(row.superseded ? [supersededCreate(ARM_ID, ids.resource ?? '')] : []),
      ...(row.nodePool ? [nodePoolResource({ internalId: csNodePoolHref(), activeOperationId: '', provisioningState: 'Succeeded' })] : []),
    ],
    cs: row.cs,
  });
}

const canceled = { [CREATE]: { status: 'Canceled', error: { code: 'Canceled', message: /superseded/ } } } as const;
const stillRunning = { [CREATE]: { status: 'Provisioning', error: null } } as const;
const stray = (id: string, state: string): ClusterSeed =>
  csCluster(id, state, { azure: { tenant_id: 'another-tenant', managed_resource_group_name: 'elsewhere' } });

/**
 * Every look of a delete with a CS id reads what CS holds for the resource — the cluster by id and
 * anything under its ARM name, one shared call in production (here, with no batching window, two) —
 * then sends DELETE (idempotent) to each one not already uninstalling.
 */
const LOOK = ['observeClusterStatus cs1', 'searchClusters named c1'];
const DELETE_CS1 = 'deleteCluster cs1';

const rows: Row[] = [
  {
    name: 'a superseded create still running is left to its own handling while the delete follows (no query per look)',
    cs: [csCluster('cs1', 'installing')],
    superseded: true,
    expect: { outcome: { again: FIRST_CHECK_MS }, ...deleting, others: stillRunning, calls: [...LOOK, DELETE_CS1], held: ['cs1'] },
  },
  ...(['ready', 'pending', 'error'] as const).map((state): Row => ({
    name: `delete sends DELETE for a cluster CS reports ${state} (idempotent), then follows`,
    cs: [csCluster('cs1', state)],
    expect: { outcome: { again: FIRST_CHECK_MS }, ...deleting, transitions: [], calls: [...LOOK, DELETE_CS1], held: ['cs1'] },
  })),
  {
    name: 'delete sends no DELETE for a cluster CS already uninstalls, and follows it',
    cs: [csCluster('cs1', 'uninstalling')],
    superseded: true,
    expect: { outcome: { again: FIRST_CHECK_MS }, ...deleting, others: stillRunning, calls: LOOK, held: ['cs1'] },
  },
  {
    name: 'a delete just written sends its DELETE without reading first (nobody asked CS yet), then follows',
    startedAgoMs: 100,
    cs: [csCluster('cs1', 'ready')],
    expect: { outcome: { again: FIRST_CHECK_MS }, ...deleting, transitions: [], calls: [DELETE_CS1], held: ['cs1'] },
  },
  {
    name: 'a delete just written whose DELETE finds nothing under the id reads by id and name in the same look',
    startedAgoMs: 100,
    cs: [stray('stray1', 'ready')],
    expect: {
      outcome: { again: FIRST_CHECK_MS },
      ...deleting,
      transitions: [],
      calls: [DELETE_CS1, ...LOOK, 'deleteCluster stray1'],
      held: ['stray1'],
    },
  },
  {
    name: 'a delete just written ends in its first look when CS holds nothing for the resource',
    startedAgoMs: 100,
    expect: { outcome: { notify: true }, ...deleteDone(), calls: [DELETE_CS1, ...LOOK], held: [] },
  },
  {
    name: 'delete is done only when CS holds nothing for the resource',
    superseded: true,
    expect: {
      outcome: { notify: true },
      ...deleteDone('and the create canceled'),
      others: canceled,
      calls: LOOK,
      held: [],
    },
  },
  {
    name: 'delete whose cluster is gone deletes what else CS holds under the resource’s name first',
    cs: [stray('stray1', 'ready')],
    expect: {
      outcome: { again: FIRST_CHECK_MS },
      ...deleting,
      transitions: [],
      calls: [...LOOK, 'deleteCluster stray1'],
      held: ['stray1'],
    },
  },
  {
    name: 'delete keeps waiting while a leftover under the resource’s name uninstalls',
    cs: [stray('stray1', 'uninstalling')],
    expect: { outcome: { again: FIRST_CHECK_MS }, ...deleting, calls: LOOK },
  },
  {
    name: 'delete uses the Operation’s CS id when the Resource has none',
    ids: { op: href('cs1') },
    cs: [csCluster('cs1', 'ready')],
    expect: { outcome: { again: FIRST_CHECK_MS }, ...deleting, calls: [...LOOK, DELETE_CS1] },
  },
  {
    name: 'delete of a resource with no CS id deletes whatever CS holds under its name',
    ids: {},
    cs: [csCluster('named1', 'installing'), stray('named2', 'ready')],
    superseded: true,
    expect: {
      outcome: { again: FIRST_CHECK_MS },
      ...deleting,
      others: canceled,
      calls: ['findClustersByArmName', 'deleteCluster named1', 'deleteCluster named2'],
      held: ['named1', 'named2'],
    },
  },
  {
    name: 'delete of a resource CS never had is done without a DELETE',
    ids: {},
    superseded: true,
    cs: [csCluster('other-name', 'ready', { name: 'c2' })],
    expect: {
      outcome: { notify: true },
      ...deleteDone('and the create canceled'),
      others: canceled,
      calls: ['findClustersByArmName'],
      held: [],
    },
  },
  {
    name: 'delete waits while a create it raced may still land, canceling that create',
    ids: { pending: href('pend1') },
    startedAgoMs: 5_000,
    superseded: true,
    expect: { outcome: { again: SETTINGS.createSettleMs - 5_000 }, ...deleting, others: canceled, calls: [] },
  },
  {
    name: 'delete past the settle window follows the id the create chose',
    ids: { pending: href('pend1') },
    cs: [csCluster('pend1', 'installing')],
    expect: {
      outcome: { again: FIRST_CHECK_MS },
      ...deleting,
      calls: ['observeClusterStatus pend1', 'searchClusters named c1', 'deleteCluster pend1'],
    },
  },
  {
    name: 'delete past the settle window whose chosen id never reached CS is done once the search by name finds nothing',
    ids: { pending: href('pend1') },
    expect: { outcome: { notify: true }, ...deleteDone(), calls: ['observeClusterStatus pend1', 'searchClusters named c1'] },
  },
  {
    name: 'delete done removes the cluster’s node pool documents too',
    nodePool: true,
    expect: { outcome: { notify: true }, ...deleteDone(), calls: LOOK },
  },
  {
    name: 'delete whose DELETE CS refuses for now (409) looks again and cancels nothing',
    cs: [csCluster('cs1', 'ready')],
    superseded: true,
    faults: [['deleteCluster', '409']],
    expect: { outcome: { again: FIRST_CHECK_MS }, ...deleting, others: stillRunning, calls: [...LOOK, DELETE_CS1], held: ['cs1'] },
  },
  {
    name: 'delete whose DELETE fails with a 5xx is left to the queue’s retry, canceling nothing',
    cs: [csCluster('cs1', 'ready')],
    superseded: true,
    faults: [['deleteCluster', '5xx']],
    expect: {
      outcome: { throws: ClustersServiceServerError },
      ...deleting,
      others: stillRunning,
      calls: [...LOOK, DELETE_CS1],
      held: ['cs1'],
    },
  },
  {
    name: 'delete whose search by name fails is not done',
    faults: [['searchClusters', '5xx']],
    expect: { outcome: { throws: ClustersServiceServerError }, ...deleting, transitions: [], calls: LOOK },
  },
  {
    name: 'a fenced delete sends no DELETE and cancels nothing',
    cs: [csCluster('cs1', 'ready')],
    superseded: true,
    meanwhile: { afterRead: (w) => w.fence() },
    // Reads go out (they change nothing); the DELETE does not.
    expect: { outcome: { throws: LeaseMoved }, ...deleting, others: stillRunning, calls: LOOK, held: ['cs1'] },
  },
  {
    name: 'a fenced delete whose cluster is gone writes nothing',
    meanwhile: { afterRead: (w) => w.fence() },
    expect: { outcome: { throws: LeaseMoved }, ...deleting, transitions: [], calls: LOOK },
  },
  {
    name: 'delete whose Resource document is not a cluster is a terminal error',
    resourceIsNodePool: true,
    expect: { outcome: { throws: TerminalError }, op: { status: 'Deleting' }, calls: [] },
  },
];

/** A node pool document of the cluster goes with it. */
function afterwards(w: ProcessorWorld, row: Row): void {
  if (row.nodePool) expect(w.resource(nodePoolArmId())).toBeUndefined();
}

describe('cluster delete', () => {
  itHandlesEach(rows, { given, processor: 'cluster-delete', armId: ARM_ID, then: afterwards });

  it('delete runs its course: one DELETE, then reads while CS uninstalls, done once the read finds nothing by id or name', async () => {
    const w = given({ cs: [csCluster('cs1', 'ready')] });
    const outcomes: string[] = [];
    for (let i = 0; i < 4; i++) {
      if (i === 3) w.cs.finishDeletes();
      outcomes.push((await lookAndWait(w)).note);
    }
    expect(outcomes).toEqual(['delete requested', 'CS uninstalling', 'CS uninstalling', 'deleted: notify']);
    expect(w.cs.calls).toEqual([...LOOK, DELETE_CS1, ...LOOK, ...LOOK, ...LOOK]);
    expect(w.operation()?.status).toBe('Succeeded');
    expect(w.resource(ARM_ID)).toBeUndefined();
  });
});

/**
 * With Clusters Service events (serviceBus.connectionString set), a Delete looks as without them (a
 * read of what CS holds, a DELETE to what is not uninstalling); the follow's own checks wait longer
 * while events flow, and an event brings the next look forward.
 */
describe('cluster delete with Clusters Service events', () => {
  const withEvents = (cs: readonly ClusterSeed[]): ProcessorWorld => {
    const w = given({ cs });
    w.restart({ csEvents: true });
    return w;
  };
  const look = async (w: ProcessorWorld): Promise<string> => {
    const h = await w.handle();
    if (!('outcome' in h)) throw h.error;
    if (h.outcome.kind === 'again') w.clock.advance(h.outcome.afterMs);
    return h.outcome.kind === 'again' ? (h.outcome.note ?? '') : h.outcome.kind;
  };

  it("sends one DELETE; the follow's own check after it is only the safety net", async () => {
    const w = withEvents([csCluster('cs1', 'ready')]);
    w.csEvent(href('cs1'), 'ready');
    const first = await w.handle();
    expect(first).toMatchObject({ outcome: { kind: 'again', note: 'delete requested' } });
    w.clock.advance(FIRST_CHECK_MS);
    const h = await w.handle();
    expect('outcome' in h && h.outcome.kind === 'again' && h.outcome.afterMs).toBeGreaterThanOrEqual(CS_EVENTS_FOLLOW_DELAY_MS);
    expect(w.cs.calls).toEqual([...LOOK, DELETE_CS1, ...LOOK]);
    expect(w.operation()?.status).toBe('Deleting');
  });

  it.each(['uninstalling', 'deleted'])('sends no DELETE when CS already uninstalls, whatever the newest event says (%s)', async (state) => {
    const w = withEvents([csCluster('cs1', 'uninstalling')]);
    w.csEvent(href('cs1'), state);
    await w.handle();
    expect(w.cs.calls).toEqual(LOOK);
  });

  it('a stale event about a cluster already gone costs one read: nothing by id or name ends it', async () => {
    const w = withEvents([]);
    w.csEvent(href('cs1'), 'ready');
    expect(await look(w)).toBe('deleted: notify');
    expect(w.cs.calls).toEqual(LOOK);
    expect(w.operation()?.status).toBe('Succeeded');
  });

  it('runs its course in one read besides the first look once CS reports the cluster gone', async () => {
    const w = withEvents([csCluster('cs1', 'ready')]);
    w.csEvent(href('cs1'), 'ready');
    expect(await look(w)).toBe('delete requested');
    w.csEvent(href('cs1'), 'uninstalling', { wakes: 'op-1' });
    w.cs.finishDeletes();
    w.csEvent(href('cs1'), 'deleted', { wakes: 'op-1' });
    expect(await look(w)).toBe('deleted: notify');
    expect(w.cs.calls).toEqual([...LOOK, DELETE_CS1, ...LOOK]);
    expect(w.operation()?.status).toBe('Succeeded');
    expect(w.resource(ARM_ID)).toBeUndefined();
  });

  it('a wrong "deleted" event costs one read; the cluster still uninstalling keeps the delete going', async () => {
    const w = withEvents([csCluster('cs1', 'ready')]);
    w.csEvent(href('cs1'), 'ready');
    await look(w);
    w.csEvent(href('cs1'), 'deleted', { wakes: 'op-1' });
    expect(await look(w)).toBe('CS uninstalling');
    expect(w.cs.calls).toEqual([...LOOK, DELETE_CS1, ...LOOK]);
    expect(w.operation()?.status).toBe('Deleting');
  });
});
