import { ClustersServiceClientError, ClustersServiceServerError } from '../../../../src/clusters-service';
import { TerminalError } from '../../../../src/domain/errors';
import type { NodePoolProperties } from '../../../../src/domain/types.generated';
import {
  FIRST_CHECK_MS,
  LeaseMoved,
  ProcessorWorld,
  SETTINGS,
  csCluster,
  csNodePoolHref,
  nodePoolArmId,
  processorTestbed,
} from '../../../helpers/processor-kit';
import { ended, itHandlesEach, moved, stays, type ScenarioRow } from '../../../helpers/processor-scenarios';
import type { ScriptedNodePool } from '../../../helpers/scripted-clusters-service';

/**
 * node-pool-update (processors/node-pool/update.ts): an Update `op-1` (Accepted) of node pool `np1`
 * (CS href on the Resource and the Operation). CS holds 2 replicas of version 4.18, label
 * `tier=web`; the Resource asks for 5 replicas unless a row says otherwise. The dispatch reads the
 * node pool (one GET, its status embedded), PATCHes only what differs and only while it is ready;
 * nothing different ends the Update at once.
 */
const ARM_ID = nodePoolArmId();
const NP_HREF = csNodePoolHref();
const HELD: Omit<ScriptedNodePool, 'id' | 'state'> = { replicas: 2, version: '4.18', spec: { labels: { tier: 'web' } } };

interface Row extends ScenarioRow {
  /** CS state of node pool np1 (`absent`: CS does not know it). */
  readonly np: string;
  /** The Resource's properties over version 4.18, 5 replicas and label tier=web. */
  readonly wants?: Partial<NodePoolProperties>;
  readonly idOn?: 'operation only' | 'nowhere' | 'cluster document';
}

function given(row: Pick<Row, 'np' | 'wants' | 'idOn'>): ProcessorWorld {
  const clusterThere = row.idOn === 'cluster document';
  const properties = { replicas: 5, version: '4.18', labels: { tier: 'web' }, ...row.wants };
  return processorTestbed({
    kind: 'node pool',
    request: 'Update',
    recorded: { href: NP_HREF, on: clusterThere ? 'both' : row.idOn },
    ...(clusterThere ? { documentKind: 'cluster' } : { resource: { properties } }),
    parent: null,
    cs: [csCluster('cs1', 'ready', { nodePools: row.np === 'absent' ? [] : [{ id: 'np1', state: row.np, ...structuredClone(HELD) }] })],
  });
}

const read = ['observeNodePool cs1/np1'];
const patched = ['observeNodePool cs1/np1', 'updateNodePool cs1/np1'];
const waiting = stays('Accepted');
const updating = moved('Accepted', 'Updating');

const rows: Row[] = [
  {
    name: 'node pool update PATCHes what differs (the size) and moves to Updating',
    np: 'ready',
    expect: { outcome: { again: FIRST_CHECK_MS }, ...updating, calls: patched },
  },
  {
    name: 'node pool update with nothing different ends Succeeded at once, without a PATCH',
    np: 'ready',
    wants: { replicas: 2 },
    expect: { outcome: { notify: true }, ...ended('Accepted', 'Succeeded'), calls: read },
  },
  {
    name: 'node pool update with nothing different while CS still works on it follows it to its end',
    np: 'updating',
    wants: { replicas: 2 },
    expect: { outcome: { again: FIRST_CHECK_MS }, ...updating, calls: read },
  },
  {
    name: 'node pool update finds the CS href on the Operation when the Resource has none',
    np: 'ready',
    idOn: 'operation only',
    expect: { outcome: { again: FIRST_CHECK_MS }, op: { status: 'Updating' }, calls: patched },
  },
  {
    name: 'node pool update of a node pool not created in CS yet waits without calling CS',
    np: 'absent',
    idOn: 'nowhere',
    expect: { outcome: { again: SETTINGS.waitDelayMs }, ...waiting, calls: [] },
  },
  ...(['installing', 'updating', 'uninstalling'] as const).map((state): Row => ({
    name: `node pool update waits, without a PATCH CS would refuse, while the node pool is ${state}`,
    np: state,
    expect: { outcome: { again: SETTINGS.waitDelayMs }, ...waiting, calls: read },
  })),
  {
    name: 'node pool update waits when CS refuses the PATCH for now (409)',
    np: 'ready',
    faults: [['updateNodePool', '409']],
    expect: { outcome: { again: SETTINGS.waitDelayMs }, ...waiting, calls: patched },
  },
  {
    name: 'node pool update CS refuses permanently (400) fails with CS’s message',
    np: 'ready',
    faults: [['updateNodePool', '400']],
    expect: {
      outcome: { notify: true },
      ...ended('Accepted', 'Failed', { code: 'InvalidRequestContent', message: /CS says no \(400\)/ }),
      calls: patched,
    },
  },
  {
    name: 'node pool update of a node pool CS no longer knows (404) fails NotFound',
    np: 'absent',
    expect: { outcome: { notify: true }, ...ended('Accepted', 'Failed', { code: 'NotFound', message: /no node pool 'np1'/ }), calls: read },
  },
  {
    name: 'node pool update whose PATCH fails with a 5xx is left to the queue’s retry',
    np: 'ready',
    faults: [['updateNodePool', '5xx']],
    expect: { outcome: { throws: ClustersServiceServerError }, ...waiting, calls: patched },
  },
  {
    name: 'node pool update refused with 401 (opstream’s credentials) is retried, not failed as an invalid request',
    np: 'ready',
    faults: [['updateNodePool', '401']],
    expect: { outcome: { throws: ClustersServiceClientError }, ...waiting, calls: patched },
  },
  {
    name: 'a fenced node pool update makes no CS call',
    np: 'ready',
    meanwhile: { afterRead: (w) => w.fence() },
    expect: { outcome: { throws: LeaseMoved }, ...waiting, calls: [] },
  },
  {
    name: 'node pool update whose Resource document is not a node pool is a terminal error',
    np: 'ready',
    idOn: 'cluster document',
    expect: { outcome: { throws: TerminalError }, op: { status: 'Accepted' }, calls: [] },
  },
];

describe('node pool update', () => {
  itHandlesEach(rows, { given, processor: 'node-pool-update', armId: ARM_ID });

  it('PATCHes labels whole, taints sorted and the drain grace period, leaving what is held alone', async () => {
    const w = given({
      np: 'ready',
      wants: {
        replicas: 2,
        labels: { tier: 'db' },
        taints: [
          { key: 'z', effect: 'NoSchedule' },
          { key: 'a', value: 'x', effect: 'NoExecute' },
        ],
        nodeDrainTimeoutMinutes: 15,
      },
    });
    await w.handle();
    expect(w.cs.cluster('cs1')?.nodePools.get('np1')?.patched).toEqual({
      labels: { tier: 'db' },
      taints: [
        { key: 'a', value: 'x', effect: 'NoExecute' },
        { key: 'z', effect: 'NoSchedule' },
      ],
      node_drain_grace_period: { unit: 'minutes', value: 15 },
    });
  });

  it('an autoscaling node pool sends its range, never a replica count CS owns', async () => {
    const w = given({
      np: 'ready',
      wants: { replicas: 9, autoScaling: { min: 3, max: 8 } },
    });
    await w.handle();
    expect(w.cs.cluster('cs1')?.nodePools.get('np1')?.patched).toEqual({ autoscaling: { min_replica: 3, max_replica: 8 } });
  });

  it('a Resource without labels removes the ones CS holds', async () => {
    const w = given({ np: 'ready', wants: { replicas: 2, labels: undefined } });
    await w.handle();
    expect(w.cs.cluster('cs1')?.nodePools.get('np1')?.patched).toEqual({ labels: {} });
  });
});
