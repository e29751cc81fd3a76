import { ClustersServiceServerError } from '../../../../src/clusters-service';
import { parseArmResourceId } from '../../../../src/domain/ids';
import {
  CS_PREFIX,
  FIRST_CHECK_MS,
  ProcessorWorld,
  SETTINGS,
  T0,
  clusterArmId,
  clusterResource,
  csCluster,
  externalAuthArmId,
  externalAuthResource,
  nodePoolResource,
  operation,
  subscription,
} from '../../../helpers/processor-kit';
import { expectHandled, handleWith, type Expected, type Faults } from '../../../helpers/processor-scenarios';

/**
 * external-auth-delete (processors/external-auth/delete.ts), decided afresh on every look: a Delete
 * `op-1` (Deleting, started a minute ago) of `ea1`, whose Resource records its CS href; the parent
 * cluster's Resource records `cs1`.
 */
const ARM_ID = externalAuthArmId();
const CLUSTER_HREF = `${CS_PREFIX}/clusters/cs1`;
const EA_HREF = `${CLUSTER_HREF}/external_auth_config/external_auths/ea1`;
const CREATE = 'op-create';

interface Row {
  readonly name: string;
  readonly idOn?: 'nowhere';
  readonly parent?: 'without CS id';
  /** CS state of `ea1` (`absent`: CS does not know it). */
  readonly ea: string;
  readonly startedAgoMs?: number;
  readonly superseded?: true;
  readonly faults?: Faults;
  readonly expect: Expected & { readonly inCs?: string };
}

function given(row: Row): ProcessorWorld {
  const w = new ProcessorWorld();
  const startTime = new Date(T0 - (row.startedAgoMs ?? 60_000)).toISOString();
  const recorded = row.idOn ? '' : EA_HREF;
  w.seed(
    subscription(),
    externalAuthResource({ internalId: recorded, provisioningState: 'Deleting' }),
    operation({ request: 'Delete', externalId: ARM_ID, startTime, lastTransitionTime: startTime }),
    clusterResource({ internalId: row.parent ? '' : CLUSTER_HREF, activeOperationId: '', provisioningState: 'Succeeded' }),
  );
  if (row.superseded)
    w.seed(operation({ id: CREATE, request: 'Create', externalId: ARM_ID, status: 'Provisioning', internalId: recorded }));
  w.cs.addCluster(
    csCluster('cs1', 'ready', {
      externalAuths: row.ea === 'absent' ? [] : [{ id: 'ea1', state: row.ea, spec: { issuer: { url: 'u', audiences: [] } } }],
    }),
  );
  return w;
}

const read = ['observeExternalAuth cs1/ea1'];
const sent = ['deleteExternalAuth cs1/ea1'];
const gone: Pick<Expected, 'outcome' | 'op' | 'resource'> = { outcome: { notify: true }, op: { status: 'Succeeded' }, resource: 'deleted' };

const rows: Row[] = [
  {
    name: 'a ready external auth gets one DELETE, then the follow',
    ea: 'ready',
    expect: { outcome: { again: FIRST_CHECK_MS }, op: { status: 'Deleting' }, calls: [...read, ...sent], inCs: 'uninstalling' },
  },
  {
    name: 'a Delete just written sends its DELETE without reading first',
    ea: 'ready',
    startedAgoMs: 0,
    expect: { outcome: { again: FIRST_CHECK_MS }, op: { status: 'Deleting' }, calls: sent, inCs: 'uninstalling' },
  },
  {
    name: 'CS already uninstalling it: no second DELETE',
    ea: 'uninstalling',
    expect: { outcome: { again: FIRST_CHECK_MS }, op: { status: 'Deleting' }, calls: read },
  },
  { name: 'gone (404): the Resource document is deleted, Succeeded', ea: 'absent', expect: { ...gone, calls: read } },
  {
    name: 'gone: the Create it supersedes ends Canceled',
    ea: 'absent',
    superseded: true,
    expect: { ...gone, others: { [CREATE]: { status: 'Canceled' } }, calls: read },
  },
  {
    name: 'no href recorded: found under the parent’s CS id and the ARM name, after the create settle',
    ea: 'ready',
    idOn: 'nowhere',
    startedAgoMs: SETTINGS.createSettleMs + 1,
    expect: { outcome: { again: FIRST_CHECK_MS }, op: { status: 'Deleting' }, calls: [...read, ...sent] },
  },
  {
    name: 'a cluster that never reached CS: nothing to ask, Succeeded',
    ea: 'absent',
    idOn: 'nowhere',
    parent: 'without CS id',
    expect: { ...gone, calls: [] },
  },
  {
    name: 'a 5xx on the read is left to the queue’s retry',
    ea: 'ready',
    faults: [['observeExternalAuth', '5xx']],
    expect: { outcome: { throws: ClustersServiceServerError }, op: { status: 'Deleting' }, calls: read },
  },
];

describe('external auth delete', () => {
  it.each(rows)('$name', async (row) => {
    const w = given(row);
    expectHandled(w, await handleWith(w, row), 'external-auth-delete', ARM_ID, row.expect);
    if (row.expect.inCs) expect(w.cs.externalAuth('cs1', 'ea1')?.state).toBe(row.expect.inCs);
  });

  it('converges: DELETE, CS finishes, the next look finds 404 and nothing is left behind', async () => {
    const w = given({ name: '', ea: 'ready', expect: { outcome: { again: 0 }, calls: [] } });
    await w.handle();
    w.cs.finishDeletes();
    w.clock.advance(FIRST_CHECK_MS);
    expectHandled(w, await w.handle(), 'external-auth-delete', ARM_ID, { ...gone, calls: [...read, ...sent, ...read] });
    expect(w.cs.externalAuth('cs1', 'ea1')).toBeUndefined();
  });

  it('a Delete without a Resource document deletes what CS still holds under the ARM name (removeLeftovers)', async () => {
    const w = given({ name: '', ea: 'ready', expect: { outcome: { again: 0 }, calls: [] } });
    const processor = w.processors.find((p) => p.name === 'external-auth-delete');
    const arm = parseArmResourceId(ARM_ID);
    expect(await processor?.removeLeftovers?.(arm, w.kit())).toBe(1);
    expect(w.cs.externalAuth('cs1', 'ea1')?.state).toBe('uninstalling');
    w.cs.finishDeletes();
    expect(await processor?.removeLeftovers?.(arm, w.kit())).toBe(0);
  });

  it('a cluster Delete removes its external auths’ documents with its node pools’', async () => {
    const w = new ProcessorWorld();
    w.seed(
      subscription(),
      clusterResource({ internalId: CLUSTER_HREF, activeOperationId: 'op-1', provisioningState: 'Deleting' }),
      externalAuthResource({ internalId: EA_HREF, activeOperationId: '', provisioningState: 'Succeeded' }),
      nodePoolResource({ activeOperationId: '', provisioningState: 'Succeeded' }),
      operation({ request: 'Delete', externalId: clusterArmId() }),
    );
    // CS has deleted the cluster, and its external auths with it.
    const outcome = await w.handle();
    expect(outcome.processor).toBe('cluster-delete');
    expect(w.resource(ARM_ID)).toBeUndefined();
    expect(w.resource(clusterArmId())).toBeUndefined();
    expect(w.operation()?.status).toBe('Succeeded');
  });
});
