import { ClustersServiceClientError, ClustersServiceServerError } from '../../../../src/clusters-service';
import { TerminalError } from '../../../../src/domain/errors';
import type { NodePoolResource } from '../../../../src/domain/types';
import {
  FIRST_CHECK_MS,
  FOLLOW,
  LeaseMoved,
  PARTITION_KEY,
  ProcessorWorld,
  SETTINGS,
  csCluster,
  csClusterHref,
  csNodePoolHref,
  nodePoolArmId,
  nodePoolResource,
  processorTestbed,
} from '../../../helpers/processor-kit';
import {
  createFailed,
  deleteTakesOver,
  expectParentUntouched,
  itHandlesEach,
  notDispatched,
  type Expected,
  type ScenarioRow,
} from '../../../helpers/processor-scenarios';

/**
 * node-pool-create (processors/node-pool/create.ts): a Create `op-1` (Accepted) of node pool `np1`
 * of cluster `c1`, whose Resource records CS id `cs1`. The node pool's CS id is its name, so a
 * create whose answer was lost is found again by name (409 → read → adopt).
 */
const ARM_ID = nodePoolArmId();
const CLUSTER_HREF = csClusterHref();
const NP_HREF = csNodePoolHref();

interface Row extends ScenarioRow {
  /** The parent cluster's Resource: with CS id `cs1` (default), without, or absent. */
  readonly parent?: 'without CS id' | 'absent';
  readonly resource?: Partial<NodePoolResource> | 'cluster document';
  /** CS state of cluster `cs1` (default ready); `absent`: CS does not know it. */
  readonly cluster?: string;
  /** A node pool `np1` CS already has (state). */
  readonly nodePool?: string;
  readonly expect: Expected & { readonly nodePoolsInCs?: readonly string[] };
}

function given(row: Omit<Row, keyof ScenarioRow>): ProcessorWorld {
  const properties = { replicas: 3, vmSize: 'Standard_D8s_v3', autoRepair: true, autoScaling: { min: 2, max: 5 } };
  return processorTestbed({
    kind: 'node pool',
    request: 'Create',
    ...(row.resource === 'cluster document' ? { documentKind: 'cluster' } : { resource: { ...row.resource, properties } }),
    parent: row.parent === 'absent' ? null : { internalId: row.parent ? '' : CLUSTER_HREF },
    cs:
      row.cluster === 'absent'
        ? []
        : [csCluster('cs1', row.cluster ?? 'ready', { nodePools: row.nodePool ? [{ id: 'np1', state: row.nodePool }] : [] })],
  });
}

const posted = ['createNodePool cs1/np1'];
const dispatchedResource = { internalId: NP_HREF, provisioningState: 'Provisioning', activeOperationId: 'op-1' } as const;
const dispatched: Pick<Expected, 'op' | 'resource'> = {
  op: { status: 'Provisioning', internalId: NP_HREF },
  resource: dispatchedResource,
};

const rows: Row[] = [
  {
    name: 'node pool create POSTs under the parent’s CS id and records the href on the Resource before the Operation',
    expect: { outcome: { again: FIRST_CHECK_MS }, ...dispatched, calls: posted, nodePoolsInCs: ['np1'] },
  },
  {
    name: 'node pool create whose Resource already has its CS id copies it to the Operation and calls nothing',
    resource: { internalId: NP_HREF },
    nodePool: 'installing',
    // The Resource as a crash between the two writes of an earlier version left it (still Accepted).
    expect: { outcome: { again: 0 }, ...dispatched, resource: { ...dispatchedResource, provisioningState: 'Accepted' }, calls: [] },
  },
  {
    name: 'node pool create waits while its cluster has no CS id yet',
    parent: 'without CS id',
    expect: { outcome: { again: SETTINGS.waitDelayMs }, ...notDispatched, calls: [], nodePoolsInCs: [] },
  },
  {
    name: 'node pool create waits while its cluster has no document',
    parent: 'absent',
    expect: { outcome: { again: SETTINGS.waitDelayMs }, ...notDispatched, calls: [], nodePoolsInCs: [] },
  },
  ...(['timeout', 'connection-lost', 'lost-answer'] as const).map((fault): Row => ({
    name: `node pool create whose POST ended without an answer (${fault}) looks again soon`,
    faults: [['createNodePool', fault]],
    expect: {
      outcome: { again: FOLLOW.initialDelayMs },
      ...notDispatched,
      calls: posted,
      nodePoolsInCs: fault === 'lost-answer' ? ['np1'] : [],
    },
  })),
  {
    name: 'node pool create adopts the node pool an earlier attempt created (409, then found by name)',
    nodePool: 'installing',
    expect: { outcome: { again: FIRST_CHECK_MS }, ...dispatched, calls: [...posted, 'getNodePool cs1/np1'], nodePoolsInCs: ['np1'] },
  },
  {
    name: 'node pool create waits while CS refuses it for a cluster being deleted (409, none by that name)',
    cluster: 'uninstalling',
    expect: { outcome: { again: SETTINGS.waitDelayMs }, ...notDispatched, calls: [...posted, 'getNodePool cs1/np1'], nodePoolsInCs: [] },
  },
  {
    name: 'node pool create refused (409) whose lookup by name fails is left to the queue’s retry',
    nodePool: 'ready',
    faults: [['getNodePool', '5xx']],
    expect: { outcome: { throws: ClustersServiceServerError }, ...notDispatched, calls: [...posted, 'getNodePool cs1/np1'] },
  },
  {
    name: 'node pool create CS refuses permanently (400) fails with CS’s message',
    faults: [['createNodePool', '400']],
    expect: { outcome: { notify: true }, ...createFailed('InvalidRequestContent', /CS says no \(400\)/), calls: posted },
  },
  {
    name: 'node pool create of a cluster CS does not know (404) fails NotFound',
    cluster: 'absent',
    expect: { outcome: { notify: true }, ...createFailed('NotFound', /Cluster 'cs1' not found/), calls: posted },
  },
  {
    name: 'node pool create whose POST fails with a 5xx is left to the queue’s retry',
    faults: [['createNodePool', '5xx']],
    expect: { outcome: { throws: ClustersServiceServerError }, ...notDispatched, calls: posted },
  },
  {
    name: 'node pool create superseded by a Delete before the POST makes no CS call',
    meanwhile: { afterRead: deleteTakesOver(ARM_ID) },
    expect: {
      outcome: { again: 0 },
      op: notDispatched.op,
      resource: { activeOperationId: 'op-delete', internalId: '' },
      calls: [],
      nodePoolsInCs: [],
    },
  },
  {
    name: 'node pool create superseded while its POST was out records nothing',
    meanwhile: { during: ['createNodePool', deleteTakesOver(ARM_ID)] },
    expect: {
      outcome: { again: 0 },
      op: notDispatched.op,
      resource: { activeOperationId: 'op-delete', internalId: '' },
      calls: posted,
      nodePoolsInCs: ['np1'],
    },
  },
  {
    name: 'node pool create whose Resource vanished while its POST was out records nothing',
    meanwhile: { during: ['createNodePool', (w) => w.resourceDocs.remove(PARTITION_KEY, nodePoolResource().id)] },
    expect: { outcome: { again: 0 }, op: notDispatched.op, resource: 'deleted', calls: posted },
  },
  {
    name: 'a fenced node pool create makes no CS call',
    meanwhile: { afterRead: (w) => w.fence() },
    expect: { outcome: { throws: LeaseMoved }, ...notDispatched, calls: [], nodePoolsInCs: [] },
  },
  {
    name: 'node pool create whose lease moves while its POST was out writes nothing more',
    meanwhile: { during: ['createNodePool', (w) => w.fence()] },
    expect: { outcome: { throws: LeaseMoved }, ...notDispatched, calls: posted, nodePoolsInCs: ['np1'] },
  },
  {
    name: 'node pool create whose lease moves once the Resource has the CS id leaves the Operation to the next run',
    meanwhile: {
      afterRead: (w) =>
        w.resourceDocs.afterWrite(
          (_, doc) => Boolean(doc.internalId),
          () => w.fence(),
        ),
    },
    expect: { outcome: { throws: LeaseMoved }, op: notDispatched.op, resource: { internalId: NP_HREF }, calls: posted },
  },
  {
    name: 'node pool create whose Resource document is not a node pool is a terminal error',
    resource: 'cluster document',
    expect: { outcome: { throws: TerminalError }, op: notDispatched.op, calls: [] },
  },
];

/** The node pools CS holds afterwards, when the row says; the parent cluster's Resource is never written by a node pool create. */
function afterwards(w: ProcessorWorld, row: Row): void {
  if (row.expect.nodePoolsInCs) expect([...(w.cs.cluster('cs1')?.nodePools.keys() ?? [])]).toEqual(row.expect.nodePoolsInCs);
  if (row.parent === undefined) expectParentUntouched(w);
}

describe('node pool create', () => {
  itHandlesEach(rows, { given, processor: 'node-pool-create', armId: ARM_ID, then: afterwards });

  it('sends the node pool’s size, VM size, auto repair and autoscaling from its Resource', async () => {
    const w = given({});
    await w.handle();
    expect(w.cs.cluster('cs1')?.nodePools.get('np1')?.created).toEqual({
      id: 'np1',
      replicas: 3,
      version: { id: '4.18' },
      azure_node_pool: { vm_size: 'Standard_D8s_v3' },
      auto_repair: true,
      autoscaling: { min_replica: 2, max_replica: 5 },
    });
  });

  // Was a defect, fixed (see cluster create): a 401 from CS is opstream's credential, not the customer's request.
  itHandlesEach<Row>(
    [
      {
        name: 'node pool create refused with 401 (opstream’s credentials) is retried, not failed as an invalid request',
        faults: [['createNodePool', '401']],
        expect: { outcome: { throws: ClustersServiceClientError }, ...notDispatched, calls: posted },
      },
    ],
    { given, processor: 'node-pool-create', armId: ARM_ID },
  );
});
