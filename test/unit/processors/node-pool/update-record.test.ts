import type { NodePoolProperties } from '../../../../src/domain/types.generated';
import {
  FIRST_CHECK_MS,
  ProcessorWorld,
  SETTINGS,
  csCluster,
  csNodePoolHref,
  nodePoolArmId,
  processorTestbed,
} from '../../../helpers/processor-kit';
import { expectHandled, handleWith, type Faults } from '../../../helpers/processor-scenarios';

/**
 * node-pool-update with the record its last Succeeded operation left on the Resource
 * (`clustersServiceState`): the first look PATCHes the difference from the record without reading
 * Clusters Service; a record that shows nothing different is confirmed by a read; a 409 leaves the next
 * look to read. The follow's Succeeded writes the record; a Failed end removes it.
 */
const ARM_ID = nodePoolArmId();
/** What CS holds of np1, as the record stores it (Clusters Service's shape, normalized). */
const RECORD = {
  version: { id: '4.18' },
  replicas: 2,
  labels: { tier: 'web' },
  taints: [],
  node_drain_grace_period: { unit: 'minutes', value: 0 },
};

function given(
  wants: Partial<NodePoolProperties>,
  fields: { record?: Record<string, unknown>; status?: 'Accepted' | 'Updating'; np?: string } = {},
): ProcessorWorld {
  const status = fields.status ?? 'Accepted';
  return processorTestbed({
    kind: 'node pool',
    request: 'Update',
    recorded: { href: csNodePoolHref() },
    op: { status },
    resource: {
      properties: { replicas: 2, version: '4.18', labels: { tier: 'web' }, ...wants },
      provisioningState: status,
      ...(fields.record && { clustersServiceState: fields.record }),
    },
    parent: null,
    cs: [
      csCluster('cs1', 'ready', {
        nodePools: [{ id: 'np1', state: fields.np ?? 'ready', replicas: 2, version: '4.18', spec: { labels: { tier: 'web' } } }],
      }),
    ],
  });
}

async function handled(w: ProcessorWorld, faults?: Faults) {
  return handleWith(w, { faults });
}

describe('node pool update from the record of the last success', () => {
  it('PATCHes the difference from the record without reading Clusters Service first', async () => {
    const w = given({ replicas: 5 }, { record: RECORD });
    const handling = await handled(w);
    expectHandled(w, handling, 'node-pool-update', ARM_ID, {
      outcome: { again: FIRST_CHECK_MS },
      op: { status: 'Updating', error: null },
      calls: ['updateNodePool cs1/np1'],
      transitions: ['op-1: Accepted → Updating'],
    });
    expect(w.cs.cluster('cs1')?.nodePools.get('np1')?.patched).toEqual({ replicas: 5 });
  });

  it('a record showing nothing different is confirmed by a read: Succeeded without a PATCH, the record kept', async () => {
    const w = given({}, { record: RECORD });
    const handling = await handled(w);
    expectHandled(w, handling, 'node-pool-update', ARM_ID, {
      outcome: { notify: true },
      op: { status: 'Succeeded', error: null },
      calls: ['observeNodePool cs1/np1'],
    });
    expect(w.resource(ARM_ID)?.clustersServiceState).toEqual(RECORD);
  });

  it('a 409 on the PATCH from the record waits; the next look reads what Clusters Service holds', async () => {
    const w = given({ replicas: 5 }, { record: RECORD, np: 'updating' });
    const first = await handled(w, [['updateNodePool', '409']]);
    expectHandled(w, first, 'node-pool-update', ARM_ID, {
      outcome: { again: SETTINGS.waitDelayMs },
      op: { status: 'Accepted', error: null },
      calls: ['updateNodePool cs1/np1'],
    });
    await w.handle();
    expect(w.cs.calls).toEqual([
      expect.stringMatching(/^updateNodePool .*cs1\/node_pools\/np1$|^updateNodePool .*np1/),
      expect.stringMatching(/^observeNodePool .*np1/),
    ]);
  });

  it('a record that is not a node pool’s sends the whole desired state (safe), never fails the operation', async () => {
    const w = given({ replicas: 5 }, { record: { unrelated: true } });
    await handled(w);
    expect(w.cs.cluster('cs1')?.nodePools.get('np1')?.patched).toMatchObject({
      version: { id: '4.18' },
      replicas: 5,
      labels: { tier: 'web' },
    });
  });

  it('the follow’s Succeeded leaves what Clusters Service holds as the record', async () => {
    const w = given({}, { status: 'Updating' });
    await w.handle();
    expect(w.operation('op-1')?.status).toBe('Succeeded');
    expect(w.resource(ARM_ID)?.clustersServiceState).toEqual(RECORD);
  });

  it('a Failed end removes the record: after a failure Clusters Service may hold anything', async () => {
    const w = given({ replicas: 5 }, { record: RECORD });
    await handled(w, [['updateNodePool', '400']]);
    expect(w.operation('op-1')?.status).toBe('Failed');
    expect(w.resource(ARM_ID)?.clustersServiceState).toBeUndefined();
  });
});
