import type { Operation, OperationRequest, OperationStatus } from '../../../../src/domain/types';
import type { Outcome } from '../../../../src/pipeline/queue/outcome';
import { PIPELINE_EVENTS } from '../../../../src/pipeline/events';
import {
  CS_PREFIX,
  ProcessorWorld,
  clusterArmId,
  clusterResource,
  csCluster,
  nodePoolArmId,
  nodePoolResource,
  operation,
  subscription,
} from '../../../helpers/processor-kit';

/**
 * No operation is ended with another's outcome, and none is left to its deadline because nothing
 * here can do it: the crash repair (ending an operation from the Resource's terminal state) applies
 * only to the operation that wrote that state, and an operation no processor handles is set aside at
 * once as `unsupported`, naming its resource type and request, with no call to Clusters Service.
 */
const CLUSTER = clusterArmId();
const CS1 = `${CS_PREFIX}/clusters/cs1`;
type ClusterFields = NonNullable<Parameters<typeof clusterResource>[0]>;

function reconcilerOver(w: ProcessorWorld): (op: Operation) => Promise<Outcome> {
  const reconcile = w.reconciler();
  return (op) => reconcile(op.id);
}

function deadLetters(w: ProcessorWorld): Array<{ reason: string; error: string; operationId?: string }> {
  return w.emitted.flatMap((e) =>
    e.type === PIPELINE_EVENTS.deadLetterWritten ? [{ reason: e.reason, error: e.error, operationId: e.ids.operationId }] : [],
  );
}

describe('an operation is decided by its own processor, or set aside', () => {
  const atRest = (fields: ClusterFields = {}): ReturnType<typeof clusterResource> =>
    clusterResource({ internalId: CS1, activeOperationId: '', provisioningState: 'Succeeded', lastOperationId: 'create-1', ...fields });

  it.each<[string, OperationRequest, ClusterFields]>([
    ['a credential request on a cluster at rest', 'RequestCredential', {}],
    ['a credential request while an update runs', 'RequestCredential', { activeOperationId: 'update-1', provisioningState: 'Updating' }],
    ['a credential revocation on a cluster at rest', 'RevokeCredentials', {}],
    ['a credential revocation on a cluster whose update failed', 'RevokeCredentials', { provisioningState: 'Failed' }],
  ])('%s is not ended with the cluster’s outcome: its own processor asks Clusters Service', async (_name, request, resource) => {
    const w = new ProcessorWorld();
    w.seed(subscription(), atRest(resource), operation({ id: 'cred-1', request, externalId: CLUSTER, internalId: CS1 }));
    w.cs.addCluster(csCluster('cs1', 'ready'));
    const outcome = await reconcilerOver(w)(w.operation('cred-1') as Operation);

    // A request is Provisioning once CS took it; a revocation of a cluster with no credential is done at once.
    expect(outcome.kind).toBe(request === 'RequestCredential' ? 'again' : 'done');
    expect(w.operation('cred-1')).toMatchObject({ status: request === 'RequestCredential' ? 'Provisioning' : 'Succeeded' });
    expect(w.operation('cred-1')?.error).toBeUndefined();
    expect(w.cs.calls).toEqual(
      request === 'RequestCredential'
        ? [expect.stringMatching(/^requestBreakGlassCredential cs1\//)]
        : ['revokeBreakGlassCredentials cs1', 'listBreakGlassCredentials cs1'],
    );
    expect(deadLetters(w)).toEqual([]);
    expect(w.resource(CLUSTER)).toMatchObject({ provisioningState: resource.provisioningState ?? 'Succeeded' });
  });

  it('an operation no processor handles is dead-lettered as unsupported at once, naming its type and request, with no call', async () => {
    const w = new ProcessorWorld();
    const np = nodePoolArmId();
    w.seed(
      subscription(),
      atRest(),
      nodePoolResource({ internalId: `${CS1}/node_pools/np1`, activeOperationId: '', provisioningState: 'Succeeded' }),
      operation({ id: 'odd-1', request: 'RevokeCredentials', externalId: np, internalId: `${CS1}/node_pools/np1` }),
    );
    const outcome = await reconcilerOver(w)(w.operation('odd-1') as Operation);
    expect(outcome.kind).toBe('done');
    expect(w.operation('odd-1')).toMatchObject({ status: 'Accepted' });
    expect(deadLetters(w)).toEqual([
      {
        reason: 'unsupported',
        operationId: 'odd-1',
        error: expect.stringMatching(
          /^no processor handles RevokeCredentials on Microsoft\.RedHatOpenShift\/hcpOpenShiftClusters\/nodePools; this build handles: .*hcpOpenShiftClusters Create/,
        ) as unknown as string,
      },
    ]);
    expect(w.cs.calls).toEqual([]);
  });

  it.each<[OperationStatus, OperationRequest]>([
    ['Succeeded', 'Create'],
    ['Failed', 'Update'],
  ])('a %s Resource written by this %s, then a crash before the Operation write, ends the operation so', async (state, request) => {
    const w = new ProcessorWorld();
    w.seed(
      subscription(),
      atRest({ provisioningState: state, lastOperationId: 'op-9' }),
      operation({ id: 'op-9', request, externalId: CLUSTER, internalId: CS1, status: request === 'Create' ? 'Provisioning' : 'Updating' }),
    );
    await reconcilerOver(w)(w.operation('op-9') as Operation);
    expect(w.operation('op-9')).toMatchObject({ status: state });
    expect(w.cs.calls).toEqual([]);
  });

  it('an operation the Resource’s terminal state is not from is not ended with it: its processor decides from Clusters Service', async () => {
    const w = new ProcessorWorld();
    // The Resource says Succeeded, but from another operation: this Update's own outcome is CS's.
    w.seed(
      subscription(),
      atRest({ provisioningState: 'Succeeded', lastOperationId: 'another' }),
      operation({ id: 'op-9', request: 'Update', externalId: CLUSTER, internalId: CS1, status: 'Updating' }),
    );
    w.cs.addCluster(csCluster('cs1', 'error', { provision_error_message: 'the upgrade failed' }));
    await reconcilerOver(w)(w.operation('op-9') as Operation);
    expect(w.cs.calls.length).toBeGreaterThan(0);
    expect(w.operation('op-9')).toMatchObject({ status: 'Failed' });
  });

  it('a Resource written before lastOperationId was recorded names none: its terminal state repairs the operation that took it over', async () => {
    const w = new ProcessorWorld();
    w.seed(
      subscription(),
      clusterResource({ internalId: CS1, activeOperationId: '', provisioningState: 'Succeeded' }),
      operation({ id: 'op-9', request: 'Create', externalId: CLUSTER, internalId: CS1, status: 'Provisioning' }),
    );
    await reconcilerOver(w)(w.operation('op-9') as Operation);
    expect(w.operation('op-9')).toMatchObject({ status: 'Succeeded' });
    expect(w.cs.calls).toEqual([]);
  });

  it('the terminal write-back records which operation the Resource’s state is from', async () => {
    const w = new ProcessorWorld();
    w.seed(
      subscription(),
      clusterResource({ internalId: CS1, activeOperationId: 'op-9', provisioningState: 'Updating' }),
      operation({ id: 'op-9', request: 'Update', externalId: CLUSTER, internalId: CS1, status: 'Updating' }),
    );
    w.cs.addCluster(csCluster('cs1', 'ready'));
    await reconcilerOver(w)(w.operation('op-9') as Operation);
    expect(w.resource(CLUSTER)).toMatchObject({ provisioningState: 'Succeeded', activeOperationId: '', lastOperationId: 'op-9' });
  });
});
