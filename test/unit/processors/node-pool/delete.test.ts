import { ClustersServiceServerError } from '../../../../src/clusters-service';
import { TerminalError } from '../../../../src/domain/errors';
import {
  FIRST_CHECK_MS,
  LeaseMoved,
  ProcessorWorld,
  SETTINGS,
  SUPERSEDED_CREATE,
  csCluster,
  csClusterHref,
  csNodePoolHref,
  nodePoolArmId,
  processorTestbed,
  supersededCreate,
} from '../../../helpers/processor-kit';
import {
  deleteDone,
  deleting,
  expectParentUntouched,
  itHandlesEach,
  lookAndWait,
  parked,
  type ScenarioRow,
} from '../../../helpers/processor-scenarios';

/**
 * node-pool-delete (processors/node-pool/delete.ts), decided afresh on every look. Every row has a
 * Delete `op-1` (Deleting, started a minute ago) of node pool `np1`, whose Resource records the CS
 * href `…/clusters/cs1/node_pools/np1`; the parent cluster's Resource records `cs1`. Rows change the
 * ids, the CS states, and add a superseded Create.
 */
const ARM_ID = nodePoolArmId();
const CLUSTER_HREF = csClusterHref();
const NP_HREF = csNodePoolHref();
const CREATE = SUPERSEDED_CREATE;

interface Row extends ScenarioRow {
  /** The node pool's recorded href: on the Resource (default), on the Operation only, or none. */
  readonly idOn?: 'operation only' | 'nowhere';
  /** The parent cluster's Resource: CS id recorded (default), only chosen (pending), none, or no document. */
  readonly parent?: 'pending only' | 'without CS id' | 'absent';
  /** CS state of cluster cs1 (default ready; `absent`: CS does not know it). */
  readonly cluster?: string;
  /** CS state of node pool np1 (`absent`: CS does not know it). */
  readonly np: string;
  readonly startedAgoMs?: number;
  readonly superseded?: true;
  readonly resourceIsCluster?: true;
}

function given(row: Omit<Row, keyof ScenarioRow>): ProcessorWorld {
  const recorded = row.idOn === undefined ? NP_HREF : '';
  const parent =
    row.parent === 'pending only' ? { internalId: '', pendingInternalId: CLUSTER_HREF } : { internalId: row.parent ? '' : CLUSTER_HREF };
  return processorTestbed({
    kind: 'node pool',
    request: 'Delete',
    startedAgoMs: row.startedAgoMs,
    op: { internalId: row.idOn === 'operation only' ? NP_HREF : '' },
    ...(row.resourceIsCluster
      ? { documentKind: 'cluster', resource: { internalId: NP_HREF, provisioningState: 'Deleting' } }
      : { resource: { internalId: recorded, provisioningState: 'Deleting' } }),
    parent: row.parent === 'absent' ? null : parent,
    also: row.superseded ? [supersededCreate(ARM_ID, recorded)] : [],
    cs:
      row.cluster === 'absent'
        ? []
        : [csCluster('cs1', row.cluster ?? 'ready', { nodePools: row.np === 'absent' ? [] : [{ id: 'np1', state: row.np }] })],
  });
}

/** A look reads the node pool's status, then sends its DELETE unless CS is already uninstalling it. */
const read = ['observeNodePoolStatus cs1/np1'];
const deleted = ['deleteNodePool cs1/np1'];
const readThenDeleted = [...read, ...deleted];
const canceled = { [CREATE]: { status: 'Canceled', error: { code: 'Canceled', message: /superseded/ } } } as const;
const stillRunning = { [CREATE]: { status: 'Provisioning', error: null } } as const;

const rows: Row[] = [
  {
    name: 'node pool delete reads, sends DELETE and leaves a superseded create to its own handling (no query per look)',
    np: 'ready',
    superseded: true,
    expect: { outcome: { again: FIRST_CHECK_MS }, ...deleting, others: stillRunning, calls: readThenDeleted },
  },
  ...(['installing', 'error'] as const).map((state): Row => ({
    name: `node pool delete sends DELETE for a node pool CS reports ${state}, then follows`,
    np: state,
    expect: { outcome: { again: FIRST_CHECK_MS }, ...deleting, transitions: [], calls: readThenDeleted },
  })),
  {
    name: 'node pool delete sends no DELETE to a node pool CS is already uninstalling: it follows',
    np: 'uninstalling',
    expect: { outcome: { again: FIRST_CHECK_MS }, ...deleting, transitions: [], calls: read },
  },
  {
    name: 'node pool delete just written sends its DELETE without reading first',
    np: 'ready',
    startedAgoMs: 100,
    expect: { outcome: { again: FIRST_CHECK_MS }, ...deleting, transitions: [], calls: deleted },
  },
  {
    name: 'node pool delete just written whose DELETE finds nothing (404) is done',
    np: 'absent',
    startedAgoMs: 100,
    expect: { outcome: { notify: true }, ...deleteDone(), calls: deleted },
  },
  {
    name: 'node pool delete sends no DELETE while its cluster is uninstalling (CS reads its node pools as uninstalling), and follows',
    np: 'ready',
    cluster: 'uninstalling',
    expect: { outcome: { again: FIRST_CHECK_MS }, ...deleting, transitions: [], calls: read },
  },
  {
    name: 'node pool delete is done when its read finds no node pool (404)',
    np: 'absent',
    superseded: true,
    expect: { outcome: { notify: true }, ...deleteDone('and the create canceled'), others: canceled, calls: read },
  },
  {
    name: 'node pool delete is done when its read finds no cluster (404)',
    np: 'absent',
    cluster: 'absent',
    expect: { outcome: { notify: true }, ...deleteDone(), calls: read },
  },
  {
    name: 'node pool delete uses the Operation’s CS href when the Resource has none',
    np: 'ready',
    idOn: 'operation only',
    expect: { outcome: { again: FIRST_CHECK_MS }, ...deleting, calls: readThenDeleted },
  },
  {
    name: 'node pool delete without a recorded href asks CS under the parent’s CS id and the node pool’s name',
    np: 'installing',
    idOn: 'nowhere',
    expect: { outcome: { again: FIRST_CHECK_MS }, ...deleting, calls: readThenDeleted },
  },
  {
    name: 'node pool delete without a recorded href uses the id the parent’s create chose',
    np: 'absent',
    idOn: 'nowhere',
    parent: 'pending only',
    expect: { outcome: { notify: true }, ...deleteDone(), calls: read },
  },
  {
    name: 'node pool delete waits while a create it raced may still land, canceling that create',
    np: 'absent',
    idOn: 'nowhere',
    startedAgoMs: 5_000,
    superseded: true,
    expect: { outcome: { again: SETTINGS.createSettleMs - 5_000 }, ...deleting, others: canceled, calls: [] },
  },
  {
    name: 'node pool delete whose cluster never reached CS is done without asking CS',
    np: 'absent',
    idOn: 'nowhere',
    parent: 'without CS id',
    superseded: true,
    expect: { outcome: { notify: true }, ...deleteDone('and the create canceled'), others: canceled, calls: [] },
  },
  {
    name: 'node pool delete whose cluster has no document and no href is done without asking CS',
    np: 'ready',
    idOn: 'nowhere',
    parent: 'absent',
    expect: { outcome: { notify: true }, ...deleteDone(), calls: [] },
  },
  {
    name: 'node pool delete whose DELETE answers 404 (gone since its read) is done',
    np: 'ready',
    faults: [['deleteNodePool', '404']],
    expect: { outcome: { notify: true }, ...deleteDone(), calls: readThenDeleted },
  },
  {
    name: 'node pool delete whose DELETE CS refuses for now (409) looks again and cancels nothing',
    np: 'ready',
    superseded: true,
    faults: [['deleteNodePool', '409']],
    expect: { outcome: { again: FIRST_CHECK_MS }, ...deleting, others: stillRunning, calls: readThenDeleted },
  },
  {
    name: 'node pool delete whose DELETE fails with a 5xx is left to the queue’s retry',
    np: 'ready',
    superseded: true,
    faults: [['deleteNodePool', '5xx']],
    expect: { outcome: { throws: ClustersServiceServerError }, ...deleting, others: stillRunning, calls: readThenDeleted },
  },
  {
    name: 'a fenced node pool delete makes no CS call',
    np: 'ready',
    superseded: true,
    meanwhile: { afterRead: (w) => w.fence() },
    expect: { outcome: { throws: LeaseMoved }, ...deleting, others: stillRunning, calls: [] },
  },
  {
    name: 'node pool delete whose Resource document is not a node pool is a terminal error',
    np: 'ready',
    resourceIsCluster: true,
    expect: { outcome: { throws: TerminalError }, op: { status: 'Deleting' }, calls: [] },
  },
];

/** The parent cluster's Resource is never touched by a node pool delete. */
function afterwards(w: ProcessorWorld, row: Row): void {
  if (row.parent === undefined) expectParentUntouched(w);
}

describe('node pool delete', () => {
  itHandlesEach(rows, { given, processor: 'node-pool-delete', armId: ARM_ID, then: afterwards });

  it('node pool delete runs its course: one DELETE, then a read per look while CS uninstalls, done on its 404', async () => {
    const w = given({ np: 'ready' });
    const notes: string[] = [];
    for (let i = 0; i < 3; i++) {
      if (i === 2) w.cs.finishDeletes();
      notes.push((await lookAndWait(w)).note);
    }
    expect(notes).toEqual(['delete requested', 'CS uninstalling', 'deleted: notify']);
    expect(w.cs.calls).toEqual([...readThenDeleted, ...read, ...read]);
    expect(w.resource(ARM_ID)).toBeUndefined();
    expect(w.cs.cluster('cs1')?.state).toBe('ready');
  });
});

/**
 * With Clusters Service events, a node pool Delete looks as it does without them: one read, a DELETE
 * only to a node pool CS is not already deleting; a `deleted` event brings the last look forward.
 */
describe('node pool delete with Clusters Service events', () => {
  const withEvents = (row: Omit<Row, keyof ScenarioRow>): ProcessorWorld => {
    const w = given(row);
    w.restart({ csEvents: true });
    return w;
  };

  it('reads, then sends DELETE to a node pool CS still holds as ready', async () => {
    const w = withEvents({ np: 'ready', superseded: true });
    w.csEvent(NP_HREF, 'ready');
    const h = await w.handle();
    expect(h).toMatchObject({ outcome: { kind: 'again', note: 'delete requested' } });
    expect(w.cs.calls).toEqual(readThenDeleted);
    expect(w.operation()?.status).toBe('Deleting');
  });

  it('then the look that ends it is the one the "deleted" event brings forward', async () => {
    const w = withEvents({ np: 'ready' });
    w.csEvent(NP_HREF, 'ready');
    parked(await w.handle(), 'the delete');
    w.cs.finishDeletes();
    w.csEvent(NP_HREF, 'deleted', { wakes: 'op-1' });
    await w.handle();
    expect(w.cs.calls).toEqual([...readThenDeleted, ...read]);
    expect(w.operation()?.status).toBe('Succeeded');
  });

  it.each(['uninstalling', 'deleted'])(
    'sends no DELETE to a node pool CS reads as uninstalling, whatever the newest event says (%s)',
    async (state) => {
      const w = withEvents({ np: 'uninstalling' });
      w.csEvent(NP_HREF, state);
      await w.handle();
      expect(w.cs.calls).toEqual(read);
    },
  );

  it('a stale event about a node pool already gone costs one read: its 404 ends it', async () => {
    const w = withEvents({ np: 'absent' });
    w.csEvent(NP_HREF, 'ready');
    await w.handle();
    expect(w.cs.calls).toEqual(read);
    expect(w.operation()?.status).toBe('Succeeded');
  });
});
