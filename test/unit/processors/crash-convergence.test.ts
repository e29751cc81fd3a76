import { parseCsHref } from '../../../src/domain/ids';
import { ProcessCrash } from '../../helpers/scripted-clusters-service';
import {
  FIRST_CHECK_MS,
  PARTITION_KEY,
  ProcessorWorld,
  RESOURCE_GROUP,
  SUBSCRIPTION_ID,
  clusterArmId,
  csCluster,
  csClusterHref,
  csExternalAuthHref,
  csNodePoolHref,
  externalAuthArmId,
  externalAuthResource,
  nodePoolArmId,
  nodePoolResource,
  processorTestbed,
  type Handling,
} from '../../helpers/processor-kit';

/**
 * One cluster (one node pool, one external auth) per resource, whatever happens between the steps of a create: the
 * first handling is cut short at each point a crash, a lost answer or a lease move can cut it; then
 * another instance takes over and handles the operation until it is dispatched. Clusters Service
 * must hold exactly one cluster for the resource, every POST must have carried the same id, and the
 * Operation and the Resource must both name that cluster; the follow then takes it to Succeeded.
 */
const CLUSTER = clusterArmId();
const NODE_POOL = nodePoolArmId();
const EXTERNAL_AUTH = externalAuthArmId();

type Interruption = (w: ProcessorWorld) => void;

const dies = (): never => {
  throw new ProcessCrash('the process died');
};

const clusterInterruptions: Array<[string, Interruption]> = [
  [
    'the process dies right after choosing the id',
    (w) => w.resourceDocs.afterWrite((_, doc) => Boolean(doc.pendingInternalId) && !doc.internalId, dies),
  ],
  ['the search fails', (w) => w.cs.fail('findClusterByAzureIdentity', '5xx')],
  ['the lease moves during the search', (w) => w.cs.during('findClusterByAzureIdentity', () => w.fence())],
  ['the POST times out before CS takes it', (w) => w.cs.fail('createCluster', 'timeout')],
  ['the POST’s answer is lost after CS took it', (w) => w.cs.fail('createCluster', 'lost-answer')],
  ['the process dies once CS took the POST', (w) => w.cs.fail('createCluster', 'crash')],
  ['the POST fails with a 5xx', (w) => w.cs.fail('createCluster', '5xx')],
  ['the POST fails with a 5xx after CS took it (a gateway’s)', (w) => w.cs.fail('createCluster', 'applied-5xx')],
  ['the lease moves during the POST', (w) => w.cs.during('createCluster', () => w.fence())],
  ['the process dies right after the Resource got the CS id', (w) => w.resourceDocs.afterWrite((_, doc) => Boolean(doc.internalId), dies)],
  ['the Operation write fails', (w) => w.operationDocs.failNext('replace', 'op-1', new ProcessCrash('the process died'))],
  [
    'another instance handles the create while this one searches',
    (w) =>
      w.cs.during('findClusterByAzureIdentity', async () => {
        w.restart();
        await w.handle();
      }),
  ],
  [
    'another instance handles the create while this one’s POST is out',
    (w) =>
      w.cs.during('createCluster', async () => {
        w.restart();
        await w.handle();
      }),
  ],
];

/**
 * The first handling was indeed cut short: it did not dispatch, and the Operation has no CS id yet.
 * When another instance ran meanwhile, that one dispatched (the first then adopts what it created,
 * or has its POST of the same id refused as a duplicate).
 */
function expectInterrupted(w: ProcessorWorld, name: string, first: Handling): void {
  if (name.startsWith('another instance')) {
    expect(w.operation()?.internalId).not.toBe('');
    return;
  }
  expect('outcome' in first && first.outcome.kind === 'again' && first.outcome.afterMs === FIRST_CHECK_MS).toBe(false);
  expect(w.operation()?.internalId).toBe('');
}

async function untilDispatched(w: ProcessorWorld, handlings = 6): Promise<Handling[]> {
  const seen: Handling[] = [];
  for (let i = 0; i < handlings && !w.operation()?.internalId; i++) {
    const h = await w.handle();
    seen.push(h);
    if ('outcome' in h && h.outcome.kind === 'again') w.clock.advance(h.outcome.afterMs);
    else w.clock.advance(1000); // the queue's retry after a throw
  }
  return seen;
}

async function untilTerminal(w: ProcessorWorld, handlings = 6): Promise<void> {
  for (let i = 0; i < handlings && ['Accepted', 'Provisioning'].includes(w.operation()?.status ?? ''); i++) {
    const h = await w.handle();
    if ('outcome' in h && h.outcome.kind === 'again') w.clock.advance(h.outcome.afterMs);
  }
}

/**
 * Where a node pool's or an external auth's create (`method`, of the Resource document `resourceId`)
 * can be cut short; `names` renames a case.
 */
function childInterruptions(
  method: 'createNodePool' | 'createExternalAuth',
  resourceId: string,
  names: { crash?: string } = {},
): Array<[string, Interruption]> {
  return [
    ['the POST times out before CS takes it', (w) => w.cs.fail(method, 'timeout')],
    ['the POST’s answer is lost after CS took it', (w) => w.cs.fail(method, 'lost-answer')],
    [names.crash ?? 'the process dies once CS took the POST', (w) => w.cs.fail(method, 'crash')],
    ['the POST fails with a 5xx after CS took it (a gateway’s)', (w) => w.cs.fail(method, 'applied-5xx')],
    ['the lease moves during the POST', (w) => w.cs.during(method, () => w.fence())],
    [
      'the process dies right after the Resource got the CS id',
      (w) => w.resourceDocs.afterWrite((_, doc) => doc.id === resourceId && Boolean(doc.internalId), dies),
    ],
    ['the Operation write fails', (w) => w.operationDocs.failNext('replace', 'op-1', new ProcessCrash('the process died'))],
    [
      'another instance handles the create while this one’s POST is out',
      (w) =>
        w.cs.during(method, async () => {
          w.restart();
          await w.handle();
        }),
    ],
  ];
}

/** The create's first handling, cut short by `interrupt`; then another instance takes over and handles it until it is dispatched. */
async function interruptedThenTakenOver(w: ProcessorWorld, name: string, interrupt: Interruption): Promise<void> {
  interrupt(w);
  expectInterrupted(w, name, await w.handle());
  // Whatever this instance kept is lost with it: another one takes over.
  w.restart();
  await untilDispatched(w);
}

describe('a create converges to one Clusters Service object after any interruption', () => {
  it.each(clusterInterruptions)('cluster create: %s', async (name, interrupt) => {
    const w = processorTestbed({ kind: 'cluster', request: 'Create' });
    await interruptedThenTakenOver(w, name, interrupt);

    const held = w.cs.clustersNamed({ subscriptionId: SUBSCRIPTION_ID, resourceGroupName: RESOURCE_GROUP, resourceName: 'c1' });
    expect(held).toHaveLength(1);
    const id = held[0]?.id ?? '';
    const href = csClusterHref(id);
    const posted = new Set(w.cs.calls.filter((c) => c.startsWith('createCluster ')).map((c) => c.slice('createCluster '.length)));
    expect([...posted]).toEqual([id]);
    expect(w.resource(CLUSTER)).toMatchObject({ internalId: href, pendingInternalId: href, activeOperationId: 'op-1' });
    expect(w.operation()).toMatchObject({ status: 'Provisioning', internalId: href });

    w.cs.setState(id, 'ready');
    await untilTerminal(w);
    expect(w.operation()?.status).toBe('Succeeded');
    expect(w.cs.clustersNamed({ subscriptionId: SUBSCRIPTION_ID, resourceGroupName: RESOURCE_GROUP, resourceName: 'c1' })).toHaveLength(1);
  });

  const nodePoolInterruptions = childInterruptions('createNodePool', nodePoolResource().id);

  it.each(nodePoolInterruptions)('node pool create: %s', async (name, interrupt) => {
    const w = processorTestbed({ kind: 'node pool', request: 'Create', cs: [csCluster('cs1', 'ready')] });
    await interruptedThenTakenOver(w, name, interrupt);

    const href = csNodePoolHref();
    expect([...(w.cs.cluster('cs1')?.nodePools.keys() ?? [])]).toEqual(['np1']);
    expect(w.resource(NODE_POOL)).toMatchObject({ internalId: href, activeOperationId: 'op-1' });
    expect(w.operation()).toMatchObject({ status: 'Provisioning', internalId: href });
    expect(parseCsHref(w.operation()?.internalId ?? '').nodePoolId).toBe('np1');

    w.cs.setNodePoolState('cs1', 'np1', 'ready');
    await untilTerminal(w);
    expect(w.operation()?.status).toBe('Succeeded');
    expect(w.resourceDocs.copyOf(PARTITION_KEY, nodePoolResource().id)).toMatchObject({
      provisioningState: 'Succeeded',
      activeOperationId: '',
    });
  });
  const externalAuthInterruptions = childInterruptions('createExternalAuth', externalAuthResource().id, {
    crash: 'the process dies once CS took the POST (kill -9 between the CS call and the write)',
  });

  it.each(externalAuthInterruptions)('external auth create: %s', async (name, interrupt) => {
    const w = processorTestbed({ kind: 'external auth', request: 'Create', cs: [csCluster('cs1', 'ready')] });
    await interruptedThenTakenOver(w, name, interrupt);

    const href = csExternalAuthHref();
    expect([...(w.cs.cluster('cs1')?.externalAuths.keys() ?? [])]).toEqual(['ea1']);
    expect(w.resource(EXTERNAL_AUTH)).toMatchObject({ internalId: href, activeOperationId: 'op-1' });
    expect(w.operation()).toMatchObject({ status: 'Provisioning', internalId: href });

    w.cs.setExternalAuthState('cs1', 'ea1', 'ready');
    await untilTerminal(w);
    expect(w.operation()?.status).toBe('Succeeded');
    expect(w.resource(EXTERNAL_AUTH)).toMatchObject({ provisioningState: 'Succeeded', activeOperationId: '' });
    expect([...(w.cs.cluster('cs1')?.externalAuths.keys() ?? [])]).toEqual(['ea1']);
  });
});
