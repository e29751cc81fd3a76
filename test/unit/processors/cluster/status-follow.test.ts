import { ClustersServiceServerError } from '../../../../src/clusters-service';
import { InvalidIdError } from '../../../../src/domain/errors';
import type { OperationRequest, OperationStatus } from '../../../../src/domain/types';
import type { CsInflightCheck } from '../../../../src/domain/types.generated';
import {
  FOLLOW,
  LeaseMoved,
  ProcessorWorld,
  T0,
  clusterArmId,
  clusterResource,
  csCluster,
  csClusterHref,
  operation,
  processorTestbed,
  subscription,
} from '../../../helpers/processor-kit';
import {
  LOOK_AGAIN,
  ended,
  expectWaitsOutTheCooldown,
  itFollowsEach,
  lookAndWait,
  unchanged,
  type ScenarioRow,
} from '../../../helpers/processor-scenarios';

/**
 * cluster-create-follow and cluster-update-follow (processors/cluster/status-follow.ts, the shared
 * Follower): a dispatched Create or Update of cluster `c1` (CS id `cs1`, on the Operation and the
 * Resource) and what Clusters Service says of it. The follow writes only a status that changes,
 * never guesses from a 404 or an unknown state, and reads inflight checks for OCM4001.
 */
const ARM_ID = clusterArmId();
const HREF = csClusterHref();

interface Row extends ScenarioRow {
  readonly request: Extract<OperationRequest, 'Create' | 'Update'>;
  readonly status: OperationStatus;
  /** The CS state of `cs1` (`absent`: CS does not know it). */
  readonly cs: string;
  readonly csFields?: {
    description?: string;
    provision_error_code?: string;
    provision_error_message?: string;
    inflightChecks?: CsInflightCheck[];
  };
  /** Where the CS id is recorded (default both). */
  readonly idOn?: 'resource only' | 'nowhere';
}

function given(row: Omit<Row, keyof ScenarioRow>): ProcessorWorld {
  return processorTestbed({
    kind: 'cluster',
    request: row.request,
    recorded: { href: HREF, on: row.idOn },
    op: { status: row.status },
    resource: { provisioningState: row.status },
    cs: row.cs === 'absent' ? [] : [csCluster('cs1', row.cs, row.csFields)],
  });
}

const check = (name: string, status: string, error?: string): CsInflightCheck => ({
  name,
  status,
  ...(error ? { details: { error } } : {}),
});
const observed = ['observeClusterStatus cs1'];
const rows: Row[] = [
  // ── Create ──
  {
    name: 'create follow moves Accepted to Provisioning when CS is installing',
    request: 'Create',
    status: 'Accepted',
    cs: 'installing',
    expect: {
      outcome: LOOK_AGAIN,
      op: { status: 'Provisioning' },
      resource: { provisioningState: 'Provisioning', activeOperationId: 'op-1' },
      transitions: ['op-1: Accepted → Provisioning'],
      calls: observed,
    },
  },
  {
    name: 'create follow writes nothing while CS keeps installing',
    request: 'Create',
    status: 'Provisioning',
    cs: 'installing',
    expect: { outcome: LOOK_AGAIN, ...unchanged('Provisioning'), calls: observed },
  },
  ...(['pending', 'validating'] as const).map((state): Row => ({
    name: `create follow keeps Accepted while CS is ${state}`,
    request: 'Create',
    status: 'Accepted',
    cs: state,
    expect: { outcome: LOOK_AGAIN, ...unchanged('Accepted'), calls: observed },
  })),
  {
    name: 'create follow succeeds when CS is ready',
    request: 'Create',
    status: 'Provisioning',
    cs: 'ready',
    expect: { outcome: { notify: true }, ...ended('Provisioning', 'Succeeded'), calls: observed },
  },
  {
    name: 'create follow fails with CS’s provision error code and message',
    request: 'Create',
    status: 'Provisioning',
    cs: 'error',
    csFields: { provision_error_code: 'OCM3003', provision_error_message: 'quota exceeded in eastus', description: 'Install failed' },
    expect: {
      outcome: { notify: true },
      ...ended('Provisioning', 'Failed', { code: 'OCM3003', message: /^quota exceeded in eastus$/ }),
      calls: observed,
    },
  },
  {
    name: 'create follow fails InternalServerError with CS’s description when CS gives no code',
    request: 'Create',
    status: 'Provisioning',
    cs: 'error',
    csFields: { description: 'Install failed' },
    expect: {
      outcome: { notify: true },
      ...ended('Provisioning', 'Failed', { code: 'InternalServerError', message: /^Install failed$/ }),
      calls: observed,
    },
  },
  {
    name: 'create follow fails with the one failed inflight check of an OCM4001',
    request: 'Create',
    status: 'Provisioning',
    cs: 'error',
    csFields: {
      provision_error_code: 'OCM4001',
      inflightChecks: [check('egress', 'failed', 'egress to quay.io blocked'), check('dns', 'passed')],
    },
    expect: {
      outcome: { notify: true },
      ...ended('Provisioning', 'Failed', { code: 'InternalServerError', message: /^egress to quay.io blocked$/ }),
      calls: [...observed, 'getInflightChecks cs1'],
    },
  },
  {
    name: 'create follow fails MultipleErrorsOccurred when several inflight checks of an OCM4001 failed',
    request: 'Create',
    status: 'Accepted',
    cs: 'error',
    csFields: {
      provision_error_code: 'OCM4001',
      inflightChecks: [check('egress', 'failed', 'egress blocked'), check('dns', 'failed', 'no DNS')],
    },
    expect: {
      outcome: { notify: true },
      ...ended('Accepted', 'Failed', { code: 'MultipleErrorsOccurred', message: /multiple errors/ }),
      calls: [...observed, 'getInflightChecks cs1'],
    },
  },
  {
    name: 'create follow falls back to the provision error when an OCM4001 lists no failed check',
    request: 'Create',
    status: 'Provisioning',
    cs: 'error',
    csFields: {
      provision_error_code: 'OCM4001',
      provision_error_message: 'inflight checks failed',
      inflightChecks: [check('egress', 'running')],
    },
    expect: {
      outcome: { notify: true },
      ...ended('Provisioning', 'Failed', { code: 'OCM4001', message: /^inflight checks failed$/ }),
      calls: [...observed, 'getInflightChecks cs1'],
    },
  },
  {
    name: 'create follow whose inflight checks cannot be read writes nothing',
    request: 'Create',
    status: 'Provisioning',
    cs: 'error',
    csFields: { provision_error_code: 'OCM4001' },
    faults: [['getInflightChecks', '5xx']],
    expect: {
      outcome: { throws: ClustersServiceServerError },
      ...unchanged('Provisioning'),
      calls: [...observed, 'getInflightChecks cs1'],
    },
  },
  {
    name: 'create follow of a cluster CS does not know (404) writes nothing and looks again',
    request: 'Create',
    status: 'Provisioning',
    cs: 'absent',
    expect: { outcome: LOOK_AGAIN, ...unchanged('Provisioning'), calls: observed },
  },
  {
    name: 'create follow does not guess from an unknown CS state',
    request: 'Create',
    status: 'Provisioning',
    cs: 'hibernating',
    expect: { outcome: LOOK_AGAIN, ...unchanged('Provisioning'), calls: observed },
  },
  ...(['updating', 'uninstalling'] as const).map((state): Row => ({
    name: `create follow stays Provisioning while CS says ${state} (a status a Create cannot have)`,
    request: 'Create',
    status: 'Provisioning',
    cs: state,
    expect: { outcome: LOOK_AGAIN, ...unchanged('Provisioning'), calls: observed },
  })),
  {
    name: 'create follow whose status read fails writes nothing',
    request: 'Create',
    status: 'Provisioning',
    cs: 'ready',
    faults: [['observeClusterStatus', '5xx']],
    expect: { outcome: { throws: ClustersServiceServerError }, ...unchanged('Provisioning'), calls: observed },
  },
  {
    name: 'a fenced follow reads CS through the shared reader but writes nothing',
    request: 'Create',
    status: 'Provisioning',
    cs: 'ready',
    meanwhile: { afterRead: (w) => w.fence() },
    expect: { outcome: { throws: LeaseMoved }, ...unchanged('Provisioning'), calls: observed },
  },
  // ── Update ──
  {
    name: 'update follow writes nothing while CS is updating',
    request: 'Update',
    status: 'Updating',
    cs: 'updating',
    expect: { outcome: LOOK_AGAIN, ...unchanged('Updating'), calls: observed },
  },
  {
    name: 'update follow succeeds when CS is ready again',
    request: 'Update',
    status: 'Updating',
    cs: 'ready',
    expect: { outcome: { notify: true }, ...ended('Updating', 'Succeeded'), calls: observed },
  },
  {
    name: 'update follow fails with CS’s error',
    request: 'Update',
    status: 'Updating',
    cs: 'error',
    csFields: { provision_error_code: 'OCM5001', provision_error_message: 'upgrade failed' },
    expect: {
      outcome: { notify: true },
      ...ended('Updating', 'Failed', { code: 'OCM5001', message: /^upgrade failed$/ }),
      calls: observed,
    },
  },
  ...(['pending', 'installing'] as const).map((state): Row => ({
    name: `update follow stays Updating while CS says ${state}`,
    request: 'Update',
    status: 'Updating',
    cs: state,
    expect: { outcome: LOOK_AGAIN, ...unchanged('Updating'), calls: observed },
  })),
  {
    name: 'update follow reads the CS id from the Resource when the Operation has none',
    request: 'Update',
    status: 'Updating',
    cs: 'ready',
    idOn: 'resource only',
    expect: { outcome: { notify: true }, ...ended('Updating', 'Succeeded'), calls: observed },
  },
  {
    name: 'update follow with no CS id anywhere is a terminal error',
    request: 'Update',
    status: 'Updating',
    cs: 'ready',
    idOn: 'nowhere',
    expect: { outcome: { throws: InvalidIdError }, ...unchanged('Updating'), calls: [] },
  },
];

describe('cluster status follow', () => {
  itFollowsEach(rows, { given, kind: 'cluster', armId: ARM_ID, reads: ['observeClusterStatus', 'getCluster'] });

  it('a follow that sees nothing change looks again later and later, never past the ceiling, and sooner once CS moves', async () => {
    const w = given({ request: 'Create', status: 'Accepted', cs: 'pending' });
    const look = async (): Promise<number> => (await lookAndWait(w)).afterMs;
    const delays: number[] = [];
    for (let i = 0; i < 12; i++) delays.push(await look());
    for (let i = 1; i < delays.length; i++) expect(delays[i]).toBeGreaterThanOrEqual(delays[i - 1] ?? 0);
    expect(Math.max(...delays)).toBe(FOLLOW.maxDelayMs);
    // Nothing is written while CS stays where it was.
    expect(w.operation()?.lastTransitionTime).toBe(operation({ request: 'Create', externalId: ARM_ID }).lastTransitionTime);

    w.cs.setState('cs1', 'installing');
    const afterProgress = await look();
    expect(afterProgress).toBeLessThan(FOLLOW.maxDelayMs);
    expect(afterProgress).toBeLessThanOrEqual(delays[0] ?? 0);
    expect(w.operation()?.status).toBe('Provisioning');
    // Every look is one status read.
    expect(w.cs.calls).toEqual([...delays, afterProgress].map(() => 'observeClusterStatus cs1'));
  });
});

/**
 * Shared reads (the batch window on): a read made for another follower since this one's last check
 * stands in for a read of its own when it is recent — except on a look a Clusters Service event
 * brought forward, which reads again unless the shared read already shows the end.
 */
describe('cluster follow with shared reads and Clusters Service events', () => {
  const C2_ARM = clusterArmId('c2');
  const HREF2 = csClusterHref('cs2');
  function world(): ProcessorWorld {
    const w = new ProcessorWorld();
    w.seed(
      subscription(),
      clusterResource({ internalId: HREF, provisioningState: 'Updating' }),
      operation({ request: 'Update', externalId: ARM_ID, internalId: HREF, status: 'Updating' }),
      clusterResource({ name: 'c2', internalId: HREF2, provisioningState: 'Updating' }),
      operation({ id: 'op-2', request: 'Update', externalId: C2_ARM, internalId: HREF2, status: 'Updating' }),
    );
    w.cs.addCluster(csCluster('cs1', 'updating'));
    w.cs.addCluster(csCluster('cs2', 'updating', { name: 'c2' }));
    w.restart({ csEvents: true, batchWindowMs: 1 });
    return w;
  }
  /** op-1 looks, then op-2's read a second later carries cs1 along (still updating); then cs1 is ready. */
  async function riderSeenThenReady(w: ProcessorWorld): Promise<void> {
    expect(await w.handle('op-1')).toMatchObject({ outcome: { kind: 'again' } });
    w.clock.advance(1000);
    expect(await w.handle('op-2')).toMatchObject({ outcome: { kind: 'again' } });
    expect(w.cs.calls).toEqual(['searchClusters cs1', 'searchClusters cs2,cs1']);
    w.cs.setState('cs1', 'ready');
    w.clock.advance(10);
  }

  it('a look the "ready" event brought forward reads again rather than keep on the shared read made before it', async () => {
    const w = world();
    await riderSeenThenReady(w);
    w.csEvent(HREF, 'ready', { wakes: 'op-1' });
    await w.handle('op-1');
    expect(w.cs.calls.slice(2)).toEqual(['searchClusters cs1,cs2']); // cs2 rides along
    expect(w.operation('op-1')?.status).toBe('Succeeded');
  });

  it('a look nothing woke uses the recent shared read and makes no call', async () => {
    const w = world();
    await riderSeenThenReady(w);
    const h = await w.handle('op-1');
    expect(h).toMatchObject({ outcome: { kind: 'again' } });
    expect(w.cs.calls).toHaveLength(2);
    expect(w.operation('op-1')?.status).toBe('Updating');
  });
});

/**
 * An Update's follow once CS reports the cluster ready: Succeeded only when the cluster holds the
 * Resource's desired state (version 4.19, a 30-minute drain grace period); otherwise the difference
 * is sent again, at most once per `follow.updateCooldownMs` from the dispatch's PATCH (written as the
 * Operation's Updating `lastTransitionTime`).
 */
describe('cluster update follow against the desired state', () => {
  const desired = { version: '4.19', nodeDrainTimeoutMinutes: 30 };
  const world = (updatingSince: number, held: { version: string; drain?: number }): ProcessorWorld => {
    const spec = held.drain === undefined ? {} : { spec: { node_drain_grace_period: { unit: 'minutes', value: held.drain } } };
    return processorTestbed({
      kind: 'cluster',
      request: 'Update',
      op: { status: 'Updating', internalId: HREF, lastTransitionTime: new Date(updatingSince).toISOString() },
      resource: { internalId: HREF, provisioningState: 'Updating', properties: desired },
      cs: [csCluster('cs1', 'ready', { version: held.version, ...spec })],
    });
  };

  it('ready and at the desired state: Succeeded, no PATCH', async () => {
    const w = world(T0 - 5_000, { version: '4.19', drain: 30 });
    await w.handle();
    expect(w.cs.calls).toEqual(['getCluster cs1']);
    expect(w.operation('op-1')?.status).toBe('Succeeded');
  });

  it('ready but not at the desired state within the cooldown: no PATCH, stays Updating, looks again once it is over', async () => {
    const w = world(T0 - 5_000, { version: '4.18' });
    await expectWaitsOutTheCooldown(w, 'getCluster cs1', 5_000);
  });

  it('ready but not at the desired state after the cooldown: the difference is sent again, then Succeeded once CS holds it', async () => {
    const w = world(T0 - FOLLOW.updateCooldownMs, { version: '4.18' });
    await w.handle();
    expect(w.cs.calls).toEqual(['getCluster cs1', 'updateCluster cs1']);
    expect(w.cs.cluster('cs1')?.patched).toEqual({ version: { id: '4.19' }, node_drain_grace_period: { unit: 'minutes', value: 30 } });
    expect(w.operation('op-1')?.status).toBe('Updating');
    // This instance sent it just now: not again within the cooldown, even if CS still differs.
    w.cs.setState('cs1', 'ready');
    Object.assign(w.cs.cluster('cs1') ?? {}, { version: '4.18' });
    await w.handle();
    expect(w.cs.calls.filter((c) => c.startsWith('updateCluster'))).toHaveLength(1);
    Object.assign(w.cs.cluster('cs1') ?? {}, { version: '4.19' });
    await w.handle();
    expect(w.operation('op-1')?.status).toBe('Succeeded');
  });

  it('a re-sent difference CS refuses for good fails the Update with CS’s message', async () => {
    const w = world(T0 - FOLLOW.updateCooldownMs, { version: '4.18' });
    w.cs.fail('updateCluster', '400');
    await w.handle();
    expect(w.operation('op-1')).toMatchObject({ status: 'Failed', error: { code: 'InvalidRequestContent' } });
  });
});
