import { TerminalError } from '../../src/domain/errors';
import { parseCsHref } from '../../src/domain/ids';
import { CLUSTER_RESOURCE_TYPE, isClusterResource } from '../../src/domain/resource-types';
import { clustersNamed, createSettleRemainingMs, deleteClusters } from '../../src/pipeline/reconcile/delete-leftovers';
import type { OperationProcessor, OperationWork, ProcessorKit } from '../../src/pipeline/reconcile/processor';
import { again, type Outcome } from '../../src/pipeline/queue/outcome';
import type { Follower } from '../../src/pipeline/reconcile/follow/follower';
import { cancelSuperseded } from '../kit/supersede';

/**
 * Cluster delete, decided afresh on every look from the documents and Clusters Service:
 * - when a create may still be in flight (an id was chosen but never recorded), wait until it can
 *   no longer land;
 * - the cluster on the documents: DELETE on every look (idempotent; its answer is what a status read
 *   would tell: Follower.deleteLook); accepted → cancel what the Delete supersedes (CS hears first:
 *   the frontend already gave the Resource to the Delete, so no create of a superseded operation
 *   can POST meanwhile) and follow; gone (404) → anything else CS holds under the ARM name is
 *   deleted too, and only when nothing is left are the Resource documents (the cluster's and its
 *   node pools') deleted and the operation marked Succeeded;
 * - no id on the documents: every cluster found by the resource's ARM name is deleted, until none.
 */
export const clusterDelete = (follower: Follower): OperationProcessor => ({
  name: 'cluster-delete',
  resourceType: CLUSTER_RESOURCE_TYPE,
  request: 'Delete',
  phase: 'any',
  async reconcile(work, kit) {
    const { op, resource, arm } = work;
    if (!isClusterResource(resource)) throw new TerminalError(`resource ${resource.id} is not a cluster`);
    const settleMs = createSettleRemainingMs(kit, op, resource, Boolean(resource.pendingInternalId));
    if (settleMs > 0) {
      await cancel(work, kit);
      return again(settleMs, 'a create sent before the delete may still land in Clusters Service');
    }
    const beforeDeleted = async (): Promise<void> => {
      await cancel(work, kit);
      await deleteNodePoolDocuments(kit, op.partitionKey, op.externalId);
    };
    const href = resource.internalId || op.internalId || resource.pendingInternalId || '';
    if (href) {
      const { clusterId } = parseCsHref(href);
      // Woken because CS reported the cluster gone: one search by name tells both that it is gone and
      // that nothing else is left under the name (the DELETE would be followed by that search anyway).
      if (follower.wokenByDeletion(work, href) && (await clustersNamed(kit, arm)).length === 0) {
        follower.stopWatching(href);
        await beforeDeleted();
        return follower.apply(work, kit, { kind: 'deleted' }, 'gone', 'nothing in Clusters Service');
      }
      return follower.deleteLook(work, kit, href, {
        send: () => kit.cs.deleteCluster(clusterId),
        accepted: () => cancel(work, kit),
        gone: async () => {
          follower.stopWatching(href);
          // Anything else CS holds under the ARM name (a create whose answer was lost, a cluster made
          // outside opstream) is deleted too: only a search by name can tell.
          const held = await leftoversOf(work, kit);
          if (held) return held;
          await beforeDeleted();
          return follower.apply(work, kit, { kind: 'deleted' }, 'gone', 'not found');
        },
        read: async () => {
          const { observation: o } = await follower.clusterStatus.observe(clusterId);
          return o.found ? { found: true, state: o.status.state, description: o.status.description || o.status.state } : o;
        },
      });
    }
    // No id on the documents: whatever CS holds under the resource's ARM name is this resource's.
    const named = await clustersNamed(kit, arm);
    if (named.length > 0) {
      await deleteClusters(kit, named);
      await cancel(work, kit);
      return again(follower.firstCheckAfterDispatch(work, kit), `delete requested for ${named.length} cluster(s) found by name`);
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

/** The followed cluster is gone: anything else CS holds under the resource's ARM name is deleted too. */
async function leftoversOf(work: OperationWork, kit: ProcessorKit): Promise<Outcome | undefined> {
  const left = await clustersNamed(kit, work.arm);
  if (left.length === 0) return undefined;
  work.logger.warn('Clusters Service still holds clusters of this resource; deleting them too', { csClusterIds: left });
  await deleteClusters(kit, left);
  return again(kit.settings.waitDelayMs, `deleting ${left.length} more cluster(s) of this resource`);
}

async function deleteNodePoolDocuments(kit: ProcessorKit, partitionKey: string, clusterArmId: string): Promise<void> {
  for (const child of await kit.resources.listNodePoolsOf(partitionKey, clusterArmId)) await kit.resources.delete(partitionKey, child.id);
}
