import { parseCsHref, resourceDocumentId } from '../src/domain/ids';
import { CLUSTER_RESOURCE_TYPE, isClusterResource } from '../src/domain/resource-types';
import { clustersNamed, createSettleRemainingMs, deleteClusters } from '../src/pipeline/delete-leftovers';
import { applyDecision, firstCheckAfterDispatch, followCluster } from '../src/pipeline/follow-status';
import type { OperationProcessor, OperationWork } from '../src/pipeline/operation-processor';
import type { PipelineContext } from '../src/pipeline/context';
import { again, type Outcome } from '../src/pipeline/outcome';
import { cancelSuperseded } from '../src/pipeline/supersede';

/**
 * Cluster delete: cancels the Create/Update it supersedes; when a create may still be in flight
 * (an id was chosen but never recorded), waits until it can no longer land; asks Clusters Service
 * to delete the cluster on the documents and every cluster found by the resource's ARM name (404 =
 * already gone); follows until CS answers 404 — `ready` while the delete starts keeps Deleting —
 * and is done only once a last search by ARM name finds nothing either. Then it deletes the
 * Resource documents (the cluster's and its node pools') and marks the operation Succeeded.
 */
export const clusterDelete: OperationProcessor = {
  name: 'cluster-delete',
  resourceType: CLUSTER_RESOURCE_TYPE,
  request: 'Delete',
  phase: 'any',
  async reconcile(work, ctx) {
    const { op, resource, follow, arm, logger } = work;
    if (!isClusterResource(resource)) throw new Error(`resource ${resource.id} is not a cluster`);
    if (!follow.dispatched) {
      const canceled = await cancelSuperseded(ctx, op);
      if (canceled) logger.info(`canceled ${canceled} operation(s) superseded by the delete`);
      const settleMs = createSettleRemainingMs(ctx, op, resource, Boolean(resource.pendingInternalId));
      if (settleMs > 0) return again(settleMs, 'a create sent before the delete may still land in Clusters Service');
    }
    const href = resource.internalId || op.internalId || resource.pendingInternalId || '';
    if (!follow.dispatched) {
      const ids = href ? [parseCsHref(href).clusterId] : [];
      // A create whose id never reached the documents is found by the name ARM knows it by.
      if (!resource.internalId && !op.internalId) ids.push(...(await clustersNamed(ctx, arm)));
      const requested = await deleteClusters(ctx, ids);
      follow.dispatched = true;
      if (requested) return again(firstCheckAfterDispatch(work, ctx), 'delete requested');
    }
    const confirmDeleted = (): Promise<Outcome | undefined> => leftoversOf(work, ctx);
    const beforeDeleted = (): Promise<void> => deleteNodePoolDocuments(ctx, op.partitionKey, op.externalId);
    if (href) return followCluster(work, ctx, href, { confirmDeleted, beforeDeleted });
    const held = await confirmDeleted();
    if (held) return held;
    await beforeDeleted();
    return applyDecision(work, ctx, { kind: 'deleted' }, 'gone', 'nothing in Clusters Service');
  },
};

/** The followed cluster is gone: anything else CS holds under the resource's ARM name is deleted too. */
async function leftoversOf(work: OperationWork, ctx: PipelineContext): Promise<Outcome | undefined> {
  const left = await clustersNamed(ctx, work.arm);
  if (left.length === 0) return undefined;
  work.logger.warn('Clusters Service still holds clusters of this resource; deleting them too', { csClusterIds: left });
  await deleteClusters(ctx, left);
  return again(ctx.settings.waitDelayMs, `deleting ${left.length} more cluster(s) of this resource`);
}

async function deleteNodePoolDocuments(ctx: PipelineContext, partitionKey: string, clusterArmId: string): Promise<void> {
  const prefix = `${resourceDocumentId(clusterArmId)}|nodepools|`;
  const { items } = await ctx.resources.documents.query(
    { query: 'SELECT * FROM c WHERE STARTSWITH(c.id, @prefix)', parameters: [{ name: '@prefix', value: prefix }] },
    { partitionKey },
  );
  for (const child of items) await ctx.resources.delete(partitionKey, child.id);
}
