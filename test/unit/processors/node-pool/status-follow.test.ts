import { ClustersServiceServerError } from '../../../../src/clusters-service';
import { InvalidIdError } from '../../../../src/domain/errors';
import type { OperationRequest, OperationStatus } from '../../../../src/domain/types';
import {
  FOLLOW,
  LeaseMoved,
  ProcessorWorld,
  T0,
  csCluster,
  csClusterHref,
  csNodePoolHref,
  nodePoolArmId,
  processorTestbed,
} from '../../../helpers/processor-kit';
import {
  LOOK_AGAIN,
  ended,
  expectWaitsOutTheCooldown,
  itFollowsEach,
  unchanged,
  type ScenarioRow,
} from '../../../helpers/processor-scenarios';

/**
 * node-pool-create-follow and node-pool-update-follow (processors/node-pool/status-follow.ts): a
 * dispatched Create or Update of node pool `np1` (CS href `…/clusters/cs1/node_pools/np1` on the
 * Operation and the Resource) and what Clusters Service says of it.
 */
const ARM_ID = nodePoolArmId();
const CLUSTER_HREF = csClusterHref();
const NP_HREF = csNodePoolHref();

interface Row extends ScenarioRow {
  readonly request: Extract<OperationRequest, 'Create' | 'Update'>;
  readonly status: OperationStatus;
  /** The CS state of node pool np1 (`absent`: CS does not know it). */
  readonly np: string;
  readonly message?: string;
  /** State of cluster cs1 (default ready). */
  readonly cluster?: string;
  /** Where the CS href is recorded (default both); `cluster href` records the cluster's instead. */
  readonly idOn?: 'resource only' | 'nowhere' | 'cluster href';
}

function given(row: Omit<Row, keyof ScenarioRow>): ProcessorWorld {
  const np =
    row.np === 'absent'
      ? []
      : [{ id: 'np1', state: row.np, version: '4.18', replicas: 2, ...(row.message ? { message: row.message } : {}) }];
  return processorTestbed({
    kind: 'node pool',
    request: row.request,
    recorded: { href: row.idOn === 'cluster href' ? CLUSTER_HREF : NP_HREF, on: row.idOn === 'cluster href' ? 'both' : row.idOn },
    op: { status: row.status },
    resource: { provisioningState: row.status },
    cs: [csCluster('cs1', row.cluster ?? 'ready', { nodePools: np })],
  });
}

const observed = ['observeNodePoolStatus cs1/np1'];
const rows: Row[] = [
  // ── Create ──
  {
    name: 'node pool create follow moves Accepted to Provisioning when CS is installing',
    request: 'Create',
    status: 'Accepted',
    np: 'installing',
    expect: {
      outcome: LOOK_AGAIN,
      op: { status: 'Provisioning' },
      resource: { provisioningState: 'Provisioning' },
      transitions: ['op-1: Accepted → Provisioning'],
      calls: observed,
    },
  },
  {
    name: 'node pool create follow writes nothing while CS keeps installing',
    request: 'Create',
    status: 'Provisioning',
    np: 'installing',
    expect: { outcome: LOOK_AGAIN, ...unchanged('Provisioning'), calls: observed },
  },
  ...(['validating', 'pending'] as const).map((state): Row => ({
    name: `node pool create follow keeps Accepted while CS is ${state}`,
    request: 'Create',
    status: 'Accepted',
    np: state,
    expect: { outcome: LOOK_AGAIN, ...unchanged('Accepted'), calls: observed },
  })),
  {
    name: 'node pool create follow succeeds when CS is ready',
    request: 'Create',
    status: 'Provisioning',
    np: 'ready',
    expect: { outcome: { notify: true }, ...ended('Provisioning', 'Succeeded'), calls: observed },
  },
  ...(['error', 'recoverable_error'] as const).map((state): Row => ({
    name: `node pool create follow fails InternalServerError with CS’s message when CS says ${state}`,
    request: 'Create',
    status: 'Provisioning',
    np: state,
    message: 'not enough quota for Standard_D8s_v3',
    expect: {
      outcome: { notify: true },
      ...ended('Provisioning', 'Failed', { code: 'InternalServerError', message: /^not enough quota for Standard_D8s_v3$/ }),
      calls: observed,
    },
  })),
  {
    name: 'node pool create follow fails with a generic message when CS gives none',
    request: 'Create',
    status: 'Accepted',
    np: 'error',
    expect: {
      outcome: { notify: true },
      ...ended('Accepted', 'Failed', { code: 'InternalServerError', message: /^Node pool provisioning failed$/ }),
      calls: observed,
    },
  },
  {
    name: 'node pool create follow of a node pool CS does not know (404) writes nothing',
    request: 'Create',
    status: 'Provisioning',
    np: 'absent',
    expect: { outcome: LOOK_AGAIN, ...unchanged('Provisioning'), calls: observed },
  },
  {
    name: 'node pool create follow does not guess from an unknown CS state',
    request: 'Create',
    status: 'Provisioning',
    np: 'scaling',
    expect: { outcome: LOOK_AGAIN, ...unchanged('Provisioning'), calls: observed },
  },
  {
    name: 'node pool create follow stays Provisioning while its cluster is uninstalling',
    request: 'Create',
    status: 'Provisioning',
    np: 'installing',
    cluster: 'uninstalling',
    expect: { outcome: LOOK_AGAIN, ...unchanged('Provisioning'), calls: observed },
  },
  {
    name: 'node pool create follow whose status read fails writes nothing',
    request: 'Create',
    status: 'Provisioning',
    np: 'ready',
    faults: [['observeNodePoolStatus', '5xx']],
    expect: { outcome: { throws: ClustersServiceServerError }, ...unchanged('Provisioning'), calls: observed },
  },
  {
    name: 'a fenced node pool follow makes no CS call',
    request: 'Create',
    status: 'Provisioning',
    np: 'ready',
    meanwhile: { afterRead: (w) => w.fence() },
    expect: { outcome: { throws: LeaseMoved }, ...unchanged('Provisioning'), calls: [] },
  },
  // ── Update ──
  {
    name: 'node pool update follow writes nothing while CS is updating',
    request: 'Update',
    status: 'Updating',
    np: 'updating',
    expect: { outcome: LOOK_AGAIN, ...unchanged('Updating'), calls: observed },
  },
  ...(['validating_update', 'pending_update', 'installing'] as const).map((state): Row => ({
    name: `node pool update follow stays Updating while CS says ${state}`,
    request: 'Update',
    status: 'Updating',
    np: state,
    expect: { outcome: LOOK_AGAIN, ...unchanged('Updating'), calls: observed },
  })),
  {
    name: 'node pool update follow succeeds when CS is ready again',
    request: 'Update',
    status: 'Updating',
    np: 'ready',
    expect: { outcome: { notify: true }, ...ended('Updating', 'Succeeded'), calls: observed },
  },
  {
    name: 'node pool update follow fails with CS’s message',
    request: 'Update',
    status: 'Updating',
    np: 'error',
    message: 'scale-out failed',
    expect: {
      outcome: { notify: true },
      ...ended('Updating', 'Failed', { code: 'InternalServerError', message: /^scale-out failed$/ }),
      calls: observed,
    },
  },
  {
    name: 'node pool update follow reads the CS href from the Resource when the Operation has none',
    request: 'Update',
    status: 'Updating',
    np: 'ready',
    idOn: 'resource only',
    expect: { outcome: { notify: true }, ...ended('Updating', 'Succeeded'), calls: observed },
  },
  {
    name: 'node pool update follow with no CS href anywhere is a terminal error',
    request: 'Update',
    status: 'Updating',
    np: 'ready',
    idOn: 'nowhere',
    expect: { outcome: { throws: InvalidIdError }, ...unchanged('Updating'), calls: [] },
  },
];

describe('node pool status follow', () => {
  // An Update's look reads the node pool itself (its status embedded, its desired state compared).
  itFollowsEach(rows, { given, kind: 'node-pool', armId: ARM_ID, reads: ['observeNodePoolStatus', 'observeNodePool'] });

  // Was a defect, fixed: Follower.nodePool throws a plain Error for an href without a node pool, which the queue
  // retries maxHandlerAttempts times before dead-lettering; a document no retry can fix is a
  // TerminalError (as a missing href already is: InvalidIdError), dead-lettered at once.
  itFollowsEach<Row>(
    [
      {
        name: 'node pool update follow whose CS href names a cluster, not a node pool, is a terminal error',
        request: 'Update',
        status: 'Updating',
        np: 'ready',
        idOn: 'cluster href',
        expect: { outcome: { throwsTerminal: true }, ...unchanged('Updating'), calls: [] },
      },
    ],
    { given, kind: 'node-pool', armId: ARM_ID, reads: ['observeNodePoolStatus', 'observeNodePool'] },
  );
});

/**
 * A node pool Update's follow once CS reports it ready: Succeeded only when the node pool holds the
 * Resource's desired state (label tier=db); otherwise the difference is sent again, at most once per
 * `follow.updateCooldownMs` from the dispatch's PATCH (the Operation's Updating `lastTransitionTime`).
 */
describe('node pool update follow against the desired state', () => {
  const world = (updatingSince: number, heldTier: string): ProcessorWorld =>
    processorTestbed({
      kind: 'node pool',
      request: 'Update',
      op: { status: 'Updating', internalId: NP_HREF, lastTransitionTime: new Date(updatingSince).toISOString() },
      resource: { internalId: NP_HREF, provisioningState: 'Updating', properties: { labels: { tier: 'db' } } },
      cs: [
        csCluster('cs1', 'ready', {
          nodePools: [{ id: 'np1', state: 'ready', version: '4.18', replicas: 2, spec: { labels: { tier: heldTier } } }],
        }),
      ],
    });

  it('ready and at the desired state: Succeeded from one read, no PATCH', async () => {
    const w = world(T0 - 5_000, 'db');
    await w.handle();
    expect(w.cs.calls).toEqual(['observeNodePool cs1/np1']);
    expect(w.operation('op-1')?.status).toBe('Succeeded');
  });

  it('ready but not at the desired state within the cooldown: no PATCH, looks again once it is over', async () => {
    const w = world(T0 - 5_000, 'web');
    await expectWaitsOutTheCooldown(w, 'observeNodePool cs1/np1', 5_000);
  });

  it('ready but not at the desired state after the cooldown: sent again, Succeeded once CS holds it', async () => {
    const w = world(T0 - FOLLOW.updateCooldownMs, 'web');
    await w.handle();
    expect(w.cs.calls).toEqual(['observeNodePool cs1/np1', 'updateNodePool cs1/np1']);
    expect(w.cs.cluster('cs1')?.nodePools.get('np1')?.patched).toEqual({ labels: { tier: 'db' } });
    w.cs.setNodePoolState('cs1', 'np1', 'ready');
    await w.handle();
    expect(w.operation('op-1')?.status).toBe('Succeeded');
  });
});
