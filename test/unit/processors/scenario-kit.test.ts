import { isConflict, isNotFound, isOutcomeUnknown, isClustersServiceError } from '../../../src/clusters-service';
import { ConcurrentUpdateError } from '../../../src/cosmos/errors';
import { resourceDocumentId } from '../../../src/domain/ids';
import { cosmosError } from '../../helpers/in-memory-container';
import {
  LeaseMoved,
  PARTITION_KEY,
  ProcessorWorld,
  clusterArmId,
  clusterResource,
  csCluster,
  nodePoolArmId,
  nodePoolResource,
  operation,
} from '../../helpers/processor-kit';
import type { CsFault } from '../../helpers/scripted-clusters-service';

/**
 * The scenario tables trust their stand-ins: these hold the in-memory container to Cosmos'
 * optimistic concurrency as the real repositories see it, and the scripted Clusters Service to the
 * error predicates production branches on.
 */
const CLUSTER = clusterArmId();
const DOC_ID = resourceDocumentId(CLUSTER);

describe('the in-memory container under the real repositories', () => {
  it('a writer that read before another writer changed the document gets a 412 and re-applies its change to the fresh document', async () => {
    const w = new ProcessorWorld().seed(clusterResource());
    const read = await w.resources.read(PARTITION_KEY, DOC_ID);
    if (!read) throw new Error('seeded resource not found');
    w.changeResource(CLUSTER, { provisioningState: 'Provisioning' });
    const seen: string[] = [];
    const result = await w.resources.update(
      PARTITION_KEY,
      DOC_ID,
      (current) => {
        seen.push(current.provisioningState);
        return { ...current, internalId: '/api/aro_hcp/v1alpha1/clusters/x1' };
      },
      { startFrom: read },
    );
    expect(seen).toEqual(['Accepted', 'Provisioning']);
    expect(result).toMatchObject({
      outcome: 'updated',
      document: { provisioningState: 'Provisioning', internalId: '/api/aro_hcp/v1alpha1/clusters/x1' },
    });
    expect(w.resourceDocs.writes).toEqual([`replace ${DOC_ID}`]);
  });

  it('a writer that loses every race gives up with ConcurrentUpdateError', async () => {
    const w = new ProcessorWorld().seed(clusterResource());
    let n = 0;
    const attempt = w.resources.update(PARTITION_KEY, DOC_ID, (current) => {
      w.changeResource(CLUSTER, { activeOperationId: `op-${++n}` });
      return { ...current, internalId: '/api/aro_hcp/v1alpha1/clusters/x1' };
    });
    await expect(attempt).rejects.toBeInstanceOf(ConcurrentUpdateError);
  });

  it('answers the repositories’ SQL queries: non-terminal operations, resources by ARM id, node pools of a cluster', async () => {
    const w = new ProcessorWorld().seed(
      clusterResource(),
      nodePoolResource({ name: 'np1' }),
      nodePoolResource({ name: 'np2' }),
      nodePoolResource({ name: 'np1', cluster: 'c2' }),
      operation({ request: 'Create', externalId: CLUSTER }),
      operation({ id: 'op-2', request: 'Update', externalId: CLUSTER, status: 'Succeeded' }),
    );
    expect((await w.operations.listNonTerminal({ partitionKeys: [PARTITION_KEY] })).items.map((o) => o.id)).toEqual(['op-1']);
    expect((await w.resources.listChildrenOf(PARTITION_KEY, CLUSTER.toUpperCase())).map((r) => r.resourceId).sort()).toEqual([
      nodePoolArmId('np1'),
      nodePoolArmId('np2'),
    ]);
    w.resourceDocs.remove(PARTITION_KEY, DOC_ID);
    w.resourceDocs.put({ ...clusterResource(), id: 'named-otherwise' });
    expect((await w.resources.findFor(PARTITION_KEY, CLUSTER.toLowerCase()))?.id).toBe('named-otherwise');
  });

  it('a scripted failure fails that write only, with the status the SDK would carry', async () => {
    const w = new ProcessorWorld().seed(operation({ request: 'Create', externalId: CLUSTER }));
    w.operationDocs.failNext('replace', 'op-1', cosmosError(503));
    await expect(w.operations.setInternalId(PARTITION_KEY, 'op-1', '/api/aro_hcp/v1alpha1/clusters/x1')).rejects.toMatchObject({
      status: 503,
      retriable: true,
    });
    await expect(w.operations.setInternalId(PARTITION_KEY, 'op-1', '/api/aro_hcp/v1alpha1/clusters/x1')).resolves.toMatchObject({
      outcome: 'updated',
    });
  });
});

describe('the scripted Clusters Service', () => {
  const cases: Array<
    [CsFault, { conflict: boolean; notFound: boolean; outcomeUnknown: boolean; retriable: boolean; tookEffect: boolean }]
  > = [
    ['5xx', { conflict: false, notFound: false, outcomeUnknown: false, retriable: true, tookEffect: false }],
    ['applied-5xx', { conflict: false, notFound: false, outcomeUnknown: false, retriable: true, tookEffect: true }],
    ['429', { conflict: false, notFound: false, outcomeUnknown: false, retriable: true, tookEffect: false }],
    ['timeout', { conflict: false, notFound: false, outcomeUnknown: true, retriable: true, tookEffect: false }],
    ['connection-lost', { conflict: false, notFound: false, outcomeUnknown: true, retriable: true, tookEffect: false }],
    ['lost-answer', { conflict: false, notFound: false, outcomeUnknown: true, retriable: true, tookEffect: true }],
    ['409', { conflict: true, notFound: false, outcomeUnknown: false, retriable: false, tookEffect: false }],
    ['400', { conflict: false, notFound: false, outcomeUnknown: false, retriable: false, tookEffect: false }],
    ['404', { conflict: false, notFound: true, outcomeUnknown: false, retriable: false, tookEffect: false }],
    ['bad-response', { conflict: false, notFound: false, outcomeUnknown: true, retriable: false, tookEffect: true }],
  ];

  it.each(cases)('a POST failing with %s looks to production as it should', async (fault, expected) => {
    const w = new ProcessorWorld();
    w.cs.fail('createCluster', fault);
    const seed = csCluster('new1', 'pending');
    const err: unknown = await w.cs
      .createCluster({ id: 'new1', name: 'c1', region: { id: 'eastus' }, version: { id: '4.18' }, azure: seed.azure })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(isClustersServiceError(err)).toBe(true);
    expect({
      conflict: isConflict(err),
      notFound: isNotFound(err),
      outcomeUnknown: isOutcomeUnknown(err),
      retriable: (err as { retriable: boolean }).retriable,
      tookEffect: w.cs.cluster('new1') !== undefined,
    }).toEqual(expected);
    expect(w.cs.calls).toEqual(['createCluster new1']);
  });

  it('behaves like the simulator where nothing is scripted: a taken id is a 409, a DELETE starts uninstalling, a status read of nothing is "not found"', async () => {
    const w = new ProcessorWorld();
    w.cs.addCluster(csCluster('c-1', 'ready'));
    const body = { id: 'c-1', name: 'c1', region: { id: 'eastus' }, version: { id: '4.18' }, azure: csCluster('x', 'ready').azure };
    expect(isConflict(await w.cs.createCluster(body).catch((e: unknown) => e))).toBe(true);
    await expect(w.cs.deleteCluster('c-1')).resolves.toEqual({ alreadyGone: false });
    await expect(w.cs.observeClusterStatus('c-1')).resolves.toMatchObject({ found: true, status: { state: 'uninstalling' } });
    w.cs.finishDeletes();
    await expect(w.cs.observeClusterStatus('c-1')).resolves.toEqual({ found: false });
    await expect(w.cs.deleteCluster('c-1')).resolves.toEqual({ alreadyGone: true });
  });

  it('a fenced view refuses every call before it reaches CS, with the fence’s reason', async () => {
    const w = new ProcessorWorld();
    w.cs.addCluster(csCluster('c-1', 'ready'));
    const controller = new AbortController();
    const fenced = w.cs.withSignal(controller.signal);
    await expect(fenced.observeClusterStatus('c-1')).resolves.toMatchObject({ found: true });
    controller.abort(new LeaseMoved('moved'));
    await expect(fenced.deleteCluster('c-1')).rejects.toBeInstanceOf(LeaseMoved);
    expect(w.cs.calls).toEqual(['observeClusterStatus c-1']);
    expect(w.cs.refused).toEqual(['deleteCluster c-1']);
    expect(w.cs.cluster('c-1')?.state).toBe('ready');
  });
});
