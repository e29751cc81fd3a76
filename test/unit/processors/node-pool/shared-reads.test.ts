import {
  ProcessorWorld,
  clusterAtRest,
  csCluster,
  csNodePoolHref,
  nodePoolArmId,
  nodePoolResource,
  operation,
  subscription,
} from '../../../helpers/processor-kit';

/**
 * Node pool looks with shared reads on (`follow.batchWindowMs` > 0): Clusters Service lists node
 * pools per cluster only, so the looks at one cluster's node pools share one
 * `GET /clusters/{id}/node_pools` (played here as `listNodePools cs1`), a
 * node pool being followed rides along, and a look that finds its node pool read since its last
 * check makes no call. A Delete sends its DELETE once and, while CS uninstalls, looks with a share of
 * the list.
 */
const href = (np: string): string => csNodePoolHref(np);

function world(
  nodePools: ReadonlyArray<{ np: string; op: string; state: string; request: 'Create' | 'Update' | 'Delete'; status: string }>,
): ProcessorWorld {
  const w = new ProcessorWorld();
  w.seed(subscription(), clusterAtRest());
  for (const { np, op, request, status } of nodePools) {
    w.seed(
      nodePoolResource({ name: np, internalId: href(np), activeOperationId: op, provisioningState: status as 'Updating' }),
      operation({ id: op, request, externalId: nodePoolArmId(np), internalId: href(np), status: status as 'Updating' }),
    );
  }
  w.cs.addCluster(
    csCluster('cs1', 'ready', { nodePools: nodePools.map(({ np, state }) => ({ id: np, state, replicas: 2, version: '4.18' })) }),
  );
  w.restart({ batchWindowMs: 1 });
  return w;
}

async function parkedAfter(w: ProcessorWorld, op: string): Promise<number> {
  const h = await w.handle(op);
  if (!('outcome' in h) || h.outcome.kind !== 'again') throw new Error(`${op} did not park`);
  return h.outcome.afterMs;
}

describe('node pool looks with shared reads', () => {
  it('one list call per cluster serves the looks due together; a node pool followed rides along and its next look costs nothing', async () => {
    const w = world([
      { np: 'np1', op: 'op-1', state: 'installing', request: 'Create', status: 'Provisioning' },
      { np: 'np2', op: 'op-2', state: 'installing', request: 'Create', status: 'Provisioning' },
    ]);
    await Promise.all([w.handle('op-1'), w.handle('op-2')]);
    expect(w.cs.calls).toEqual(['listNodePools cs1']);
    w.clock.advance(1000);
    w.cs.setNodePoolState('cs1', 'np1', 'ready');
    w.cs.setNodePoolState('cs1', 'np2', 'ready');
    await w.handle('op-2'); // np1 rides along in op-2's read
    expect(w.cs.calls).toEqual(['listNodePools cs1', 'listNodePools cs1']);
    await w.handle('op-1'); // … and op-1 finds it ready there: no call of its own
    expect(w.cs.calls).toHaveLength(2);
    expect(w.operation('op-1')?.status).toBe('Succeeded');
    expect(w.operation('op-2')?.status).toBe('Succeeded');
  });

  it('a look is paced onto the shared tick, so looks due within one tick read together', async () => {
    const w = world([{ np: 'np1', op: 'op-1', state: 'installing', request: 'Create', status: 'Provisioning' }]);
    const afterMs = await parkedAfter(w, 'op-1');
    expect((w.clock.now() + afterMs) % 1000).toBe(0);
  });

  it('an Update’s first look joins the next shared read instead of a GET of its own, then PATCHes what differs', async () => {
    const w = world([{ np: 'np1', op: 'op-1', state: 'ready', request: 'Update', status: 'Accepted' }]);
    w.seed(nodePoolResource({ name: 'np1', internalId: href('np1'), properties: { replicas: 5 } }));
    const h = await w.handle('op-1');
    expect(h).toMatchObject({ outcome: { kind: 'again', note: /next shared read/ } });
    expect(w.cs.calls).toEqual([]);
    w.clock.advance(1000);
    await w.handle('op-1');
    expect(w.cs.calls).toEqual(['listNodePools cs1', 'updateNodePool cs1/np1']);
    expect(w.cs.cluster('cs1')?.nodePools.get('np1')?.patched).toEqual({ replicas: 5 });
    expect(w.operation('op-1')?.status).toBe('Updating');
  });

  it('an Update finding its node pool read by another look since it was written makes no read of its own', async () => {
    const w = world([
      { np: 'np1', op: 'op-1', state: 'ready', request: 'Update', status: 'Accepted' },
      { np: 'np2', op: 'op-2', state: 'installing', request: 'Create', status: 'Provisioning' },
    ]);
    await w.handle('op-1'); // joins the tick: np1 rides along from now on
    w.clock.advance(1000);
    await w.handle('op-2'); // np2's look reads np1 too
    expect(w.cs.calls).toEqual(['listNodePools cs1']);
    await w.handle('op-1');
    expect(w.cs.calls).toEqual(['listNodePools cs1']);
    expect(w.operation('op-1')?.status).toBe('Succeeded'); // nothing differs
  });

  it('a Delete sends one DELETE; while CS uninstalls, each look is a share of the list and sends none; the list’s silence ends it', async () => {
    const w = world([{ np: 'np1', op: 'op-1', state: 'ready', request: 'Delete', status: 'Deleting' }]);
    const notes: string[] = [];
    const look = async (): Promise<void> => {
      const h = await w.handle('op-1');
      if (!('outcome' in h) || h.outcome.kind !== 'again') throw new Error('the delete did not park');
      notes.push(h.outcome.note ?? '');
      w.clock.advance(h.outcome.afterMs);
    };
    await look();
    await look();
    await look();
    w.cs.finishDeletes();
    await look();
    expect(notes).toEqual(['delete requested', 'CS uninstalling', 'CS uninstalling', 'deleted: notify']);
    expect(w.cs.calls.filter((c) => c.startsWith('deleteNodePool'))).toEqual(['deleteNodePool cs1/np1']);
    expect(w.cs.calls.filter((c) => !c.startsWith('deleteNodePool'))).toEqual(Array(4).fill('listNodePools cs1'));
    expect(w.resource(nodePoolArmId('np1'))).toBeUndefined();
  });

  it('a cluster gone from Clusters Service (the list answers 404) leaves none of its node pools: the Delete ends', async () => {
    const w = world([{ np: 'np1', op: 'op-1', state: 'ready', request: 'Delete', status: 'Deleting' }]);
    w.cs.setState('cs1', 'uninstalling');
    w.cs.finishDeletes();
    await w.handle('op-1');
    expect(w.cs.calls).toEqual(['listNodePools cs1']);
    expect(w.operation('op-1')?.status).toBe('Succeeded');
  });
});
