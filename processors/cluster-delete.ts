import { clusterHref, parseCsHref, resourceDocumentId } from '../src/domain/ids';
import { CLUSTER_RESOURCE_TYPE, isClusterResource } from '../src/domain/resource-types';
import { applyDecision, firstCheckAfterDispatch, followCluster } from '../src/pipeline/follow-status';
import type { OperationProcessor } from '../src/pipeline/operation-processor';
import { again } from '../src/pipeline/outcome';
import { cancelSuperseded } from '../src/pipeline/supersede';

/**
 * Cluster delete: cancels the Create/Update it supersedes, asks Clusters Service to delete the
 * cluster (404 = already gone), follows its status until CS answers 404 — `ready` while the delete
 * starts keeps Deleting — then deletes the Resource documents (the cluster's and its node pools')
 * and marks the operation Succeeded. A cluster whose create was never dispatched has nothing in CS.
 */
export const clusterDelete: OperationProcessor = {
  name: 'cluster-delete',
  resourceType: CLUSTER_RESOURCE_TYPE,
  request: 'Delete',
  phase: 'any',
  async reconcile(work, ctx) {
    const { op, resource, follow, logger } = work;
    if (!isClusterResource(resource)) throw new Error(`resource ${resource.id} is not a cluster`);
    if (!follow.dispatched) {
      const canceled = await cancelSuperseded(ctx, op);
      if (canceled) logger.info(`canceled ${canceled} operation(s) superseded by the delete`);
    }
    const href = resource.internalId || op.internalId || (await adoptPending(work, ctx));
    if (!href) {
      await deleteNodePoolDocuments(ctx, op.partitionKey, op.externalId);
      return applyDecision(work, ctx, { kind: 'deleted' }, 'gone', 'never created in Clusters Service');
    }
    const { clusterId } = parseCsHref(href);
    if (!follow.dispatched) {
      const { alreadyGone } = await ctx.cs.deleteCluster(clusterId);
      follow.dispatched = true;
      if (!alreadyGone) return again(firstCheckAfterDispatch(work, ctx), 'delete requested');
    }
    return followCluster(work, ctx, href, { beforeDeleted: () => deleteNodePoolDocuments(ctx, op.partitionKey, op.externalId) });
  },
};

/** A create may have reached CS without its id reaching the Resource: find it by identity. */
async function adoptPending(
  work: Parameters<OperationProcessor['reconcile']>[0],
  ctx: Parameters<OperationProcessor['reconcile']>[1],
): Promise<string> {
  const { resource, arm } = work;
  if (!isClusterResource(resource) || !resource.pendingInternalId || !resource.properties.managedResourceGroupName) return '';
  const tenantId = await ctx.subscriptions.tenantIdOf(arm.subscriptionId);
  const found = await ctx.cs.findClusterByAzureIdentity({
    subscriptionId: arm.subscriptionId,
    resourceGroupName: arm.resourceGroupName,
    resourceName: arm.clusterName,
    tenantId,
    managedResourceGroupName: resource.properties.managedResourceGroupName,
  });
  return found ? clusterHref(found.id) : '';
}

async function deleteNodePoolDocuments(
  ctx: Parameters<OperationProcessor['reconcile']>[1],
  partitionKey: string,
  clusterArmId: string,
): Promise<void> {
  const prefix = `${resourceDocumentId(clusterArmId)}|nodepools|`;
  const { items } = await ctx.resources.documents.query(
    { query: 'SELECT * FROM c WHERE STARTSWITH(c.id, @prefix)', parameters: [{ name: '@prefix', value: prefix }] },
    { partitionKey },
  );
  for (const child of items) await ctx.resources.delete(partitionKey, child.id);
}
