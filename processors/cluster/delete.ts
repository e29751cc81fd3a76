import {
  CLUSTER_RESOURCE_TYPE,
  TerminalError,
  again,
  createSettleRemainingMs,
  isClusterResource,
  type OperationProcessor,
  type OperationWork,
  type ProcessorKit,
} from '../../src/kit';
import { cancelSuperseded } from '../kit/supersede';
import { clustersNamed, deleteClusters, removeClusterLeftovers } from './leftovers';
import type { ClusterLooks } from './looks';

/**
 * Cluster delete, decided afresh on every look from the documents and Clusters Service:
 * - when a create may still be in flight (an id was chosen but never recorded), wait until it can
 *   no longer land;
 * - the cluster on the documents: every look reads, in the shared status call, the cluster by id
 *   and anything CS holds under the resource's ARM name (ClusterLooks.deleteLook); each one not
 *   already uninstalling gets a DELETE (idempotent), then the follow; nothing left → what the Delete
 *   supersedes and is still running is canceled, the Resource documents (the cluster's and its node
 *   pools' and every other child's) are deleted and the operation marked Succeeded (a superseded operation this instance
 *   holds ends Canceled sooner, by its own handling, which the Delete's arrival brings forward: see
 *   OperationPipeline);
 * - no id on the documents: every cluster found by the resource's ARM name is deleted, until none.
 */
export const clusterDelete = (looks: ClusterLooks): OperationProcessor => ({
  name: 'cluster-delete',
  resourceType: CLUSTER_RESOURCE_TYPE,
  request: 'Delete',
  phase: 'any',
  removeLeftovers: removeClusterLeftovers,
  async reconcile(work, kit) {
    const { follower } = looks;
    const { op, resource, arm } = work;
    if (!isClusterResource(resource)) throw new TerminalError(`resource ${resource.id} is not a cluster`);
    const settleMs = createSettleRemainingMs(kit, op, resource, Boolean(resource.pendingInternalId));
    if (settleMs > 0) {
      await cancel(work, kit);
      return again(settleMs, 'a create sent before the delete may still land in Clusters Service');
    }
    const beforeDeleted = async (): Promise<void> => {
      await cancel(work, kit);
      await deleteChildDocuments(kit, op.partitionKey, op.externalId);
    };
    const href = resource.internalId || op.internalId || resource.pendingInternalId || '';
    if (href) {
      return looks.deleteLook(work, kit, href, {
        gone: async () => {
          await beforeDeleted();
          return follower.apply(work, kit, { kind: 'deleted' }, 'gone', 'nothing in Clusters Service');
        },
      });
    }
    // No id on the documents: whatever CS holds under the resource's ARM name is this resource's.
    const named = await clustersNamed(kit, arm);
    if (named.length > 0) {
      await deleteClusters(kit, named);
      await cancel(work, kit);
      return again(
        follower.firstCheckAfterDispatch(work, kit, undefined, true),
        `delete requested for ${named.length} cluster(s) found by name`,
      );
    }
    await beforeDeleted();
    return follower.apply(work, kit, { kind: 'deleted' }, 'gone', 'nothing in Clusters Service');
  },
});

/** Ends the Create/Update the Delete supersedes (idempotent: those already ended are not listed). */
async function cancel(work: OperationWork, kit: ProcessorKit): Promise<void> {
  const canceled = await cancelSuperseded(kit, work.op);
  if (canceled) work.logger.info(`canceled ${canceled} operation(s) superseded by the delete`);
}

/** The documents of the resources under the cluster (node pools, external auths): CS deletes them with it. */
async function deleteChildDocuments(kit: ProcessorKit, partitionKey: string, clusterArmId: string): Promise<void> {
  for (const child of await kit.resources.listChildrenOf(partitionKey, clusterArmId)) await kit.resources.delete(partitionKey, child.id);
}
