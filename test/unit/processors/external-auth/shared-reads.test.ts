import {
  ProcessorWorld,
  clusterAtRest,
  csCluster,
  csExternalAuthHref,
  externalAuthArmId,
  externalAuthResource,
  operation,
  subscription,
} from '../../../helpers/processor-kit';

/**
 * External auth looks with shared reads on (`follow.batchWindowMs` > 0): Clusters Service lists a
 * cluster's external auths whole (`GET …/external_auth_config/external_auths`, played as
 * `listExternalAuths cs1`), so the looks at one cluster's external auths due together share one call,
 * an external auth followed rides along, and a Delete sends its DELETE once.
 */
const href = (ea: string): string => csExternalAuthHref(ea);
const SPEC = { issuer: { url: 'https://issuer.example', audiences: ['a'] } };

function world(
  auths: ReadonlyArray<{ ea: string; op: string; state: string; request: 'Create' | 'Delete'; status: 'Provisioning' | 'Deleting' }>,
): ProcessorWorld {
  const w = new ProcessorWorld();
  w.seed(subscription(), clusterAtRest());
  for (const { ea, op, request, status } of auths)
    w.seed(
      externalAuthResource({ name: ea, internalId: href(ea), activeOperationId: op, provisioningState: status }),
      operation({ id: op, request, externalId: externalAuthArmId(ea), internalId: href(ea), status }),
    );
  w.cs.addCluster(csCluster('cs1', 'ready', { externalAuths: auths.map(({ ea, state }) => ({ id: ea, state, spec: SPEC })) }));
  w.restart({ batchWindowMs: 1 });
  return w;
}

describe('external auth looks with shared reads', () => {
  it('one list call per cluster serves the looks due together; the next look finds its external auth read by another', async () => {
    const w = world([
      { ea: 'ea1', op: 'op-1', state: 'installing', request: 'Create', status: 'Provisioning' },
      { ea: 'ea2', op: 'op-2', state: 'installing', request: 'Create', status: 'Provisioning' },
    ]);
    await Promise.all([w.handle('op-1'), w.handle('op-2')]);
    expect(w.cs.calls).toEqual(['listExternalAuths cs1']);
    w.clock.advance(1000);
    w.cs.setExternalAuthState('cs1', 'ea1', 'ready');
    w.cs.setExternalAuthState('cs1', 'ea2', 'ready');
    await w.handle('op-2'); // ea1 rides along
    await w.handle('op-1'); // read since its last look, and recent: no call
    expect(w.cs.calls).toEqual(['listExternalAuths cs1', 'listExternalAuths cs1']);
    expect(w.operation('op-1')?.status).toBe('Succeeded');
    expect(w.operation('op-2')?.status).toBe('Succeeded');
  });

  it('a Delete sends one DELETE; while CS uninstalls, each look is a share of the list; its absence ends the Delete', async () => {
    const w = world([{ ea: 'ea1', op: 'op-1', state: 'ready', request: 'Delete', status: 'Deleting' }]);
    const notes: string[] = [];
    for (let i = 0; i < 3; i++) {
      if (i === 2) w.cs.finishDeletes();
      const h = await w.handle('op-1');
      if (!('outcome' in h) || h.outcome.kind !== 'again') throw new Error('the delete did not park');
      notes.push(h.outcome.note ?? '');
      w.clock.advance(h.outcome.afterMs);
    }
    expect(notes).toEqual(['delete requested', 'CS uninstalling', 'deleted: notify']);
    expect(w.cs.calls).toEqual(['listExternalAuths cs1', 'deleteExternalAuth cs1/ea1', 'listExternalAuths cs1', 'listExternalAuths cs1']);
    expect(w.operation('op-1')?.status).toBe('Succeeded');
  });

  it('an Update’s first look joins the next shared read instead of a GET of its own, and decides from that read', async () => {
    const w = world([{ ea: 'ea1', op: 'op-1', state: 'ready', request: 'Create', status: 'Provisioning' }]);
    w.seed(
      externalAuthResource({ name: 'ea1', internalId: href('ea1'), activeOperationId: 'op-1', provisioningState: 'Accepted' }),
      operation({ id: 'op-1', request: 'Update', externalId: externalAuthArmId('ea1'), internalId: href('ea1'), status: 'Accepted' }),
    );
    const h = await w.handle('op-1');
    expect(h).toMatchObject({ outcome: { kind: 'again', note: /next shared read/ } });
    expect(w.cs.calls).toEqual([]);
    w.clock.advance(1000);
    await w.handle('op-1');
    expect(w.cs.calls.filter((c) => !c.startsWith('updateExternalAuth'))).toEqual(['listExternalAuths cs1']);
  });
});
