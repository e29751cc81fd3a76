import { ClustersServiceClientError, ClustersServiceServerError, ClustersServiceTimeoutError } from '../../../../src/clusters-service';
import { TerminalError } from '../../../../src/domain/errors';
import {
  CS_PREFIX,
  FIRST_CHECK_MS,
  LeaseMoved,
  ProcessorWorld,
  SETTINGS,
  clusterArmId,
  clusterResource,
  csCluster,
  nodePoolResource,
  operation,
  subscription,
} from '../../../helpers/processor-kit';
import { expectHandled, handleWith, type Expected, type Faults, type Meanwhile } from '../../../helpers/processor-scenarios';

/**
 * cluster-update (processors/cluster/update.ts): an Update `op-1` (Accepted) of cluster `c1`,
 * whose CS id `cs1` is on the Resource (and the Operation), asking for version 4.19. PATCH is
 * idempotent; CS refuses it (409) while the cluster is not ready.
 */
const ARM_ID = clusterArmId();
const HREF = `${CS_PREFIX}/clusters/cs1`;

interface Row {
  readonly name: string;
  /** CS state of `cs1` (`absent`: CS does not know it). */
  readonly cs: string;
  /** Where the CS id is recorded (default both); `node pool document` puts a node pool at the cluster's id. */
  readonly idOn?: 'operation only' | 'nowhere' | 'node pool document';
  readonly faults?: Faults;
  readonly meanwhile?: Meanwhile;
  readonly expect: Expected;
}

function given(row: Row): ProcessorWorld {
  const w = new ProcessorWorld();
  const onResource = row.idOn === undefined ? HREF : '';
  const onOp = row.idOn === 'nowhere' ? '' : HREF;
  const resource =
    row.idOn === 'node pool document'
      ? nodePoolResource({ resourceId: ARM_ID, internalId: HREF })
      : clusterResource({ internalId: onResource, properties: { version: '4.19' } });
  w.seed(subscription(), resource, operation({ request: 'Update', externalId: ARM_ID, internalId: onOp }));
  if (row.cs !== 'absent') w.cs.addCluster(csCluster('cs1', row.cs, { version: '4.18' }));
  return w;
}

const patched = ['updateCluster cs1'];
const waiting: Pick<Expected, 'op' | 'resource' | 'transitions'> = {
  op: { status: 'Accepted', error: null },
  resource: { provisioningState: 'Accepted', activeOperationId: 'op-1' },
  transitions: [],
};
const failed = (code: string, message: RegExp): Pick<Expected, 'op' | 'resource' | 'transitions'> => ({
  op: { status: 'Failed', error: { code, message } },
  resource: { provisioningState: 'Failed', activeOperationId: '' },
  transitions: ['op-1: Accepted → Failed'],
});

const rows: Row[] = [
  {
    name: 'update PATCHes the desired version and moves to Updating, where the follow takes over',
    cs: 'ready',
    expect: {
      outcome: { again: FIRST_CHECK_MS },
      op: { status: 'Updating', error: null },
      resource: { provisioningState: 'Updating', activeOperationId: 'op-1' },
      transitions: ['op-1: Accepted → Updating'],
      calls: patched,
    },
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
    name: `update waits while CS refuses the PATCH (409) of a cluster that is ${state}`,
    cs: state,
    expect: { outcome: { again: SETTINGS.waitDelayMs }, ...waiting, calls: patched },
  })),
  {
    name: 'update on a cluster CS refuses permanently fails with CS’s message',
    cs: 'ready',
    faults: [['updateCluster', '400']],
    expect: { outcome: { notify: true }, ...failed('InvalidRequestContent', /CS says no \(400\)/), calls: patched },
  },
  {
    name: 'update of a cluster CS no longer knows (404) fails NotFound',
    cs: 'absent',
    expect: { outcome: { notify: true }, ...failed('NotFound', /Cluster 'cs1' not found/), calls: patched },
  },
  {
    name: 'update whose PATCH fails with a 5xx is left to the queue’s retry',
    cs: 'ready',
    faults: [['updateCluster', '5xx']],
    expect: { outcome: { throws: ClustersServiceServerError }, ...waiting, calls: patched },
  },
  {
    name: 'update whose PATCH timed out is left to the queue’s retry (PATCH is idempotent)',
    cs: 'ready',
    faults: [['updateCluster', 'lost-answer']],
    expect: { outcome: { throws: ClustersServiceTimeoutError }, ...waiting, calls: patched },
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
  it.each(rows)('$name', async (row) => {
    const w = given(row);
    const handling = await handleWith(w, row);
    expectHandled(w, handling, 'cluster-update', ARM_ID, row.expect);
  });

  it('sends the Resource’s version in the PATCH', async () => {
    const w = given({ name: '', cs: 'ready', expect: { outcome: { again: 0 }, calls: [] } });
    await w.handle();
    expect(w.cs.cluster('cs1')).toMatchObject({ state: 'updating', version: '4.19' });
  });

  // Was a defect, fixed (see cluster create): a 401 from CS is opstream's credential, not the customer's request.
  it('update refused with 401 (opstream’s credentials) is retried, not failed as an invalid request', async () => {
    const row: Row = {
      name: '',
      cs: 'ready',
      faults: [['updateCluster', '401']],
      expect: { outcome: { throws: ClustersServiceClientError }, ...waiting, calls: patched },
    };
    const w = given(row);
    expectHandled(w, await handleWith(w, row), 'cluster-update', ARM_ID, row.expect);
  });
});
