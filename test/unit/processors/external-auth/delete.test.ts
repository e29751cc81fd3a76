import { ClustersServiceServerError } from '../../../../src/clusters-service';
import { parseArmResourceId } from '../../../../src/domain/ids';
import {
  FIRST_CHECK_MS,
  ProcessorWorld,
  SETTINGS,
  SUPERSEDED_CREATE,
  clusterArmId,
  csCluster,
  csClusterHref,
  csExternalAuthHref,
  externalAuthArmId,
  externalAuthResource,
  nodePoolResource,
  processorTestbed,
  supersededCreate,
} from '../../../helpers/processor-kit';
import { expectHandled, itHandlesEach, type Expected, type ScenarioRow } from '../../../helpers/processor-scenarios';

/**
 * external-auth-delete (processors/external-auth/delete.ts), decided afresh on every look: a Delete
 * `op-1` (Deleting, started a minute ago) of `ea1`, whose Resource records its CS href; the parent
 * cluster's Resource records `cs1`.
 */
const ARM_ID = externalAuthArmId();
const CLUSTER_HREF = csClusterHref();
const EA_HREF = csExternalAuthHref();
const CREATE = SUPERSEDED_CREATE;

interface Row extends ScenarioRow {
  readonly idOn?: 'nowhere';
  readonly parent?: 'without CS id';
  /** CS state of `ea1` (`absent`: CS does not know it). */
  readonly ea: string;
  readonly startedAgoMs?: number;
  readonly superseded?: true;
  readonly expect: Expected & { readonly inCs?: string };
}

function given(row: Omit<Row, keyof ScenarioRow>): ProcessorWorld {
  const recorded = row.idOn ? '' : EA_HREF;
  const held = row.ea === 'absent' ? [] : [{ id: 'ea1', state: row.ea, spec: { issuer: { url: 'u', audiences: [] } } }];
  return processorTestbed({
    kind: 'external auth',
    request: 'Delete',
    startedAgoMs: row.startedAgoMs,
    resource: { internalId: recorded, provisioningState: 'Deleting' },
    parent: { internalId: row.parent ? '' : CLUSTER_HREF },
    also: row.superseded ? [supersededCreate(ARM_ID, recorded)] : [],
    cs: [csCluster('cs1', 'ready', { externalAuths: held })],
  });
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

/** The state CS holds the external auth in afterwards, when the row says. */
function afterwards(w: ProcessorWorld, row: Row): void {
  if (row.expect.inCs) expect(w.cs.externalAuth('cs1', 'ea1')?.state).toBe(row.expect.inCs);
}

describe('external auth delete', () => {
  itHandlesEach(rows, { given, processor: 'external-auth-delete', armId: ARM_ID, then: afterwards });

  it('converges: DELETE, CS finishes, the next look finds 404 and nothing is left behind', async () => {
    const w = given({ ea: 'ready' });
    await w.handle();
    w.cs.finishDeletes();
    w.clock.advance(FIRST_CHECK_MS);
    expectHandled(w, await w.handle(), 'external-auth-delete', ARM_ID, { ...gone, calls: [...read, ...sent, ...read] });
    expect(w.cs.externalAuth('cs1', 'ea1')).toBeUndefined();
  });

  it('a Delete without a Resource document deletes what CS still holds under the ARM name (removeLeftovers)', async () => {
    const w = given({ ea: 'ready' });
    const processor = w.processors.find((p) => p.name === 'external-auth-delete');
    const arm = parseArmResourceId(ARM_ID);
    expect(await processor?.removeLeftovers?.(arm, w.kit())).toBe(1);
    expect(w.cs.externalAuth('cs1', 'ea1')?.state).toBe('uninstalling');
    w.cs.finishDeletes();
    expect(await processor?.removeLeftovers?.(arm, w.kit())).toBe(0);
  });

  it('a cluster Delete removes its external auths’ documents with its node pools’', async () => {
    const w = processorTestbed({
      kind: 'cluster',
      request: 'Delete',
      resource: { internalId: CLUSTER_HREF, provisioningState: 'Deleting' },
      also: [
        externalAuthResource({ internalId: EA_HREF, activeOperationId: '', provisioningState: 'Succeeded' }),
        nodePoolResource({ activeOperationId: '', provisioningState: 'Succeeded' }),
      ],
    });
    // CS has deleted the cluster, and its external auths with it.
    const outcome = await w.handle();
    expect(outcome.processor).toBe('cluster-delete');
    expect(w.resource(ARM_ID)).toBeUndefined();
    expect(w.resource(clusterArmId())).toBeUndefined();
    expect(w.operation()?.status).toBe('Succeeded');
  });
});
