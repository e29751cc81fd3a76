import { TerminalError } from '../../src/domain/errors';
import type { CsObservation } from '../../src/domain/cs-mapping';
import { parseCsHref } from '../../src/domain/ids';
import type { CsClusterStatus } from '../../src/domain/types.generated';
import { CLUSTER_RESOURCE_TYPE, isClusterResource } from '../../src/domain/resource-types';
import { clustersNamed, createSettleRemainingMs, deleteClusters } from '../../src/pipeline/reconcile/delete-leftovers';
import type { OperationProcessor, OperationWork, ProcessorKit } from '../../src/pipeline/reconcile/processor';
import { again, type Outcome } from '../../src/pipeline/queue/outcome';
import type { Follower } from '../kit/follow';
import { cancelSuperseded } from '../kit/supersede';

/**
 * Cluster delete, decided afresh on every look from the documents and Clusters Service:
 * - when a create may still be in flight (an id was chosen but never recorded), wait until it can
 *   no longer land;
 * - the cluster on the documents (or, with none, every cluster found by the resource's ARM name) is
 *   not being deleted in CS → send DELETE (idempotent; `ready` while the delete starts sends it
 *   again, harmlessly), then cancel what the Delete supersedes (CS hears first: the frontend already
 *   gave the Resource to the Delete, so no create of a superseded operation can POST meanwhile);
 * - being deleted → follow; gone (404) → anything else CS holds under the ARM name is deleted too,
 *   and only when nothing is left are the Resource documents (the cluster's and its node pools')
 *   deleted and the operation marked Succeeded.
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
    const confirmDeleted = (): Promise<Outcome | undefined> => leftoversOf(work, kit);
    const beforeDeleted = async (): Promise<void> => {
      await cancel(work, kit);
      await deleteNodePoolDocuments(kit, op.partitionKey, op.externalId);
    };
    const href = resource.internalId || op.internalId || resource.pendingInternalId || '';
    if (href) {
      const { clusterId } = parseCsHref(href);
      // With events: DELETE without reading first (a cluster already gone falls back to the read).
      if (follower.mayDeleteWithoutReading(work, href)) {
        if (await deleteClusters(kit, [clusterId])) {
          await cancel(work, kit);
          return again(follower.firstCheckAfterDispatch(work, kit, href), 'delete requested');
        }
      }
      // Woken because CS reported the cluster gone: one search by name tells both that it is gone and
      // that nothing else is left under the name (the status read would be followed by that search anyway).
      if (follower.wokenByDeletion(work, href) && (await clustersNamed(kit, arm)).length === 0) {
        follower.stopWatching(href);
        await beforeDeleted();
        return follower.apply(work, kit, { kind: 'deleted' }, 'gone', 'nothing in Clusters Service');
      }
      const onObserved = async (o: CsObservation<CsClusterStatus>): Promise<Outcome | undefined> => {
        if (!o.found || o.status.state === 'uninstalling') return undefined;
        await deleteClusters(kit, [clusterId]);
        await cancel(work, kit);
        return again(follower.firstCheckAfterDispatch(work, kit), 'delete requested');
      };
      return follower.cluster(work, kit, href, { onObserved, confirmDeleted, beforeDeleted });
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
