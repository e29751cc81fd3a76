import { ClustersServiceClientError, ClustersServiceServerError, ClustersServiceTimeoutError } from '../../../../src/clusters-service';
import { TerminalError } from '../../../../src/domain/errors';
import type { ClusterProperties } from '../../../../src/domain/types.generated';
import {
  FIRST_CHECK_MS,
  LeaseMoved,
  ProcessorWorld,
  SETTINGS,
  clusterArmId,
  clusterResource,
  csCluster,
  csClusterHref,
  operation,
  processorTestbed,
} from '../../../helpers/processor-kit';
import { ended, itHandlesEach, moved, stays, type ScenarioRow } from '../../../helpers/processor-scenarios';

/**
 * cluster-update (processors/cluster/update.ts): an Update `op-1` (Accepted) of cluster `c1`, whose
 * CS id `cs1` is on the Resource (and the Operation). CS holds version 4.18 and nothing else; the
 * Resource asks for 4.19 unless a row says otherwise. The dispatch reads the cluster, PATCHes only
 * what differs, and only while CS has it ready; nothing different ends the Update at once.
 */
const ARM_ID = clusterArmId();
const HREF = csClusterHref();

interface Row extends ScenarioRow {
  /** CS state of `cs1` (`absent`: CS does not know it). */
  readonly cs: string;
  /** The Resource's properties over version 4.19. */
  readonly wants?: Partial<ClusterProperties>;
  /** Where the CS id is recorded (default both); `node pool document` puts a node pool at the cluster's id. */
  readonly idOn?: 'operation only' | 'nowhere' | 'node pool document';
}

function given(row: Pick<Row, 'cs' | 'wants' | 'idOn'>): ProcessorWorld {
  const nodePoolThere = row.idOn === 'node pool document';
  return processorTestbed({
    kind: 'cluster',
    request: 'Update',
    recorded: { href: HREF, on: nodePoolThere ? 'both' : row.idOn },
    ...(nodePoolThere ? { documentKind: 'node pool' } : { resource: { properties: { version: '4.19', ...row.wants } } }),
    cs: row.cs === 'absent' ? [] : [csCluster('cs1', row.cs, { version: '4.18' })],
  });
}

const read = ['getCluster cs1'];
const patched = ['getCluster cs1', 'updateCluster cs1'];
const waiting = stays('Accepted');
const updating = moved('Accepted', 'Updating');

const rows: Row[] = [
  {
    name: 'update PATCHes what differs (the version) and moves to Updating, where the follow takes over',
    cs: 'ready',
    expect: { outcome: { again: FIRST_CHECK_MS }, ...updating, calls: patched },
  },
  {
    name: 'update with nothing different ends Succeeded at once, without a PATCH',
    cs: 'ready',
    wants: { version: '4.18' },
    expect: { outcome: { notify: true }, ...ended('Accepted', 'Succeeded'), calls: read },
  },
  {
    name: 'update with nothing different while CS still works on the cluster follows it to its end',
    cs: 'updating',
    wants: { version: '4.18' },
    expect: { outcome: { again: FIRST_CHECK_MS }, ...updating, calls: read },
  },
  {
    name: 'update finds the CS id on the Operation when the Resource has none',
    cs: 'ready',
    idOn: 'operation only',
    expect: { outcome: { again: FIRST_CHECK_MS }, op: { status: 'Updating' }, transitions: ['op-1: Accepted → Updating'], calls: patched },
  },
  {
    name: 'update of a cluster not created in CS yet waits without calling CS',
    cs: 'absent',
    idOn: 'nowhere',
    expect: { outcome: { again: SETTINGS.waitDelayMs }, ...waiting, calls: [] },
  },
  ...(['installing', 'updating', 'uninstalling'] as const).map((state): Row => ({
    name: `update waits, without a PATCH CS would refuse, while the cluster is ${state}`,
    cs: state,
    expect: { outcome: { again: SETTINGS.waitDelayMs }, ...waiting, calls: read },
  })),
  {
    name: 'update waits when CS refuses the PATCH for now (409)',
    cs: 'ready',
    faults: [['updateCluster', '409']],
    expect: { outcome: { again: SETTINGS.waitDelayMs }, ...waiting, calls: patched },
  },
  {
    name: 'update CS refuses permanently fails with CS’s message',
    cs: 'ready',
    faults: [['updateCluster', '400']],
    expect: {
      outcome: { notify: true },
      ...ended('Accepted', 'Failed', { code: 'InvalidRequestContent', message: /CS says no \(400\)/ }),
      calls: patched,
    },
  },
  {
    name: 'update of a cluster CS no longer knows (404) fails NotFound',
    cs: 'absent',
    expect: { outcome: { notify: true }, ...ended('Accepted', 'Failed', { code: 'NotFound', message: /no cluster 'cs1'/ }), calls: read },
  },
  {
    name: 'update whose PATCH fails with a 5xx is left to the queue’s retry',
    cs: 'ready',
    faults: [['updateCluster', '5xx']],
    expect: { outcome: { throws: ClustersServiceServerError }, ...waiting, calls: patched },
  },
  {
    name: 'update whose read fails with a 5xx sends nothing and is left to the queue’s retry',
    cs: 'ready',
    faults: [['getCluster', '5xx']],
    expect: { outcome: { throws: ClustersServiceServerError }, ...waiting, calls: read },
  },
  {
    name: 'update whose PATCH timed out is left to the queue’s retry (the next look diffs again)',
    cs: 'ready',
    faults: [['updateCluster', 'lost-answer']],
    expect: { outcome: { throws: ClustersServiceTimeoutError }, ...waiting, calls: patched },
  },
  {
    name: 'update refused with 401 (opstream’s credentials) is retried, not failed as an invalid request',
    cs: 'ready',
    faults: [['updateCluster', '401']],
    expect: { outcome: { throws: ClustersServiceClientError }, ...waiting, calls: patched },
  },
  {
    name: 'a fenced update makes no CS call',
    cs: 'ready',
    meanwhile: { afterRead: (w) => w.fence() },
    expect: { outcome: { throws: LeaseMoved }, ...waiting, calls: [] },
  },
  {
    name: 'update whose lease moves during the PATCH writes nothing',
    cs: 'ready',
    meanwhile: { during: ['updateCluster', (w) => w.fence()] },
    expect: { outcome: { throws: LeaseMoved }, ...waiting, calls: patched },
  },
  {
    name: 'update superseded by a Delete during the PATCH leaves the Resource to the Delete',
    cs: 'ready',
    meanwhile: {
      during: ['updateCluster', (w) => w.changeResource(ARM_ID, { activeOperationId: 'op-delete', provisioningState: 'Deleting' })],
    },
    expect: {
      outcome: { again: FIRST_CHECK_MS },
      op: { status: 'Updating' },
      resource: { provisioningState: 'Deleting', activeOperationId: 'op-delete' },
      calls: patched,
    },
  },
  {
    name: 'update whose Resource document is not a cluster is a terminal error',
    cs: 'ready',
    idOn: 'node pool document',
    expect: { outcome: { throws: TerminalError }, op: { status: 'Accepted' }, calls: [] },
  },
];

describe('cluster update', () => {
  itHandlesEach(rows, { given, processor: 'cluster-update', armId: ARM_ID });

  it('with shared reads, the first look waits for the next tick’s shared read, and a cluster read there costs no call of its own', async () => {
    const w = given({ cs: 'ready' });
    w.seed(
      clusterResource({ name: 'c2', internalId: csClusterHref('cs2'), provisioningState: 'Updating', activeOperationId: 'op-2' }),
      operation({
        id: 'op-2',
        request: 'Update',
        externalId: clusterArmId('c2'),
        internalId: csClusterHref('cs2'),
        status: 'Updating',
      }),
    );
    w.cs.addCluster(csCluster('cs2', 'updating', { name: 'c2' }));
    w.restart({ batchWindowMs: 1 });
    expect(await w.handle('op-1')).toMatchObject({ outcome: { kind: 'again', note: /next shared status read/ } });
    expect(w.cs.calls).toEqual([]);
    w.clock.advance(1000);
    await w.handle('op-2'); // another cluster's follow: cs1 rides along in its read
    expect(w.cs.calls).toEqual(['searchClusters cs2,cs1']);
    await w.handle('op-1');
    expect(w.cs.calls).toEqual(['searchClusters cs2,cs1', 'updateCluster cs1']);
    expect(w.operation('op-1')?.status).toBe('Updating');
  });

  it('PATCHes only the fields that differ, in Clusters Service’s shape', async () => {
    const w = given({
      cs: 'ready',
      wants: {
        version: '4.18',
        nodeDrainTimeoutMinutes: 30,
        authorizedCidrs: ['192.168.0.0/16', '10.0.0.0/8'],
        autoscaling: { maxNodesTotal: 20, maxNodeProvisionTimeSeconds: 600 },
      },
    });
    await w.handle();
    expect(w.cs.cluster('cs1')?.patched).toEqual({
      node_drain_grace_period: { unit: 'minutes', value: 30 },
      api: { cidr_block_access: { allow: { mode: 'allow_list', values: ['10.0.0.0/8', '192.168.0.0/16'] } } },
      autoscaler: { max_node_provision_time: '600s', resource_limits: { max_nodes_total: 20 } },
    });
  });

  it('finds nothing different when CS holds the same state in its own spelling (15m for 900 s, another CIDR order)', async () => {
    const w = given({
      cs: 'ready',
      wants: {
        version: '4.18',
        nodeDrainTimeoutMinutes: 0,
        authorizedCidrs: ['b/1', 'a/1'],
        autoscaling: { maxNodeProvisionTimeSeconds: 900 },
      },
    });
    Object.assign(w.cs.cluster('cs1') ?? {}, {
      spec: {
        api: { listening: 'external', cidr_block_access: { allow: { mode: 'allow_list', values: ['a/1', 'b/1'] } } },
        autoscaler: { max_node_provision_time: '15m', max_pod_grace_period: 600 },
      },
    });
    await w.handle();
    expect(w.cs.calls).toEqual(read);
    expect(w.operation('op-1')?.status).toBe('Succeeded');
  });

  it('lets everyone reach the API again when the Resource drops its authorized CIDRs', async () => {
    const w = given({ cs: 'ready', wants: { version: '4.18' } });
    Object.assign(w.cs.cluster('cs1') ?? {}, {
      spec: { api: { cidr_block_access: { allow: { mode: 'allow_list', values: ['10.0.0.0/8'] } } } },
    });
    await w.handle();
    expect(w.cs.cluster('cs1')?.patched).toEqual({ api: { cidr_block_access: { allow: { mode: 'allow_all' } } } });
  });
});
