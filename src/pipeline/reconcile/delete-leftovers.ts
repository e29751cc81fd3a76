import type { ArmResourceId } from '../../domain/ids';
import { parseCsHref } from '../../domain/ids';
import { isNotFound } from '../../clusters-service';
import type { Operation, Resource } from '../../domain/types';
import type { ProcessorKit } from './processor';

/** What finding and deleting leftovers needs (a processor's kit, or the reconciler's context). */
export type LeftoverDeps = Pick<ProcessorKit, 'cs' | 'resources' | 'clock' | 'settings'>;

/**
 * What a Delete must see gone before it is done: a Delete is Succeeded only when Clusters Service
 * holds nothing for the resource — neither the id on the documents nor anything found by its ARM
 * name (a create whose answer was lost, or one that went out under another id).
 */

/** CS ids of every cluster ARM knows by this resource's name. */
export async function clustersNamed(ctx: LeftoverDeps, arm: ArmResourceId): Promise<string[]> {
  const found = await ctx.cs.findClustersByArmName({
    subscriptionId: arm.subscriptionId,
    resourceGroupName: arm.resourceGroupName,
    resourceName: arm.clusterName,
  });
  return found.map((c) => c.id);
}

/** Asks CS to delete each cluster; true when at least one still existed. */
export async function deleteClusters(ctx: LeftoverDeps, clusterIds: Iterable<string>): Promise<boolean> {
  let requested = false;
  for (const id of new Set(clusterIds)) if (!(await ctx.cs.deleteCluster(id)).alreadyGone) requested = true;
  return requested;
}

/** CS cluster id of a node pool's parent, from the parent Resource (recorded or pending), if any. */
export async function parentClusterId(ctx: LeftoverDeps, arm: ArmResourceId): Promise<string | undefined> {
  const parent = await ctx.resources.findFor(arm.partitionKey, arm.clusterResourceId);
  const href = parent?.internalId || (parent && 'pendingInternalId' in parent ? parent.pendingInternalId : '');
  return href ? parseCsHref(href).clusterId : undefined;
}

/** Whether CS still has this node pool (under its parent's CS id; the node pool's CS id is its name). */
async function nodePoolExists(ctx: LeftoverDeps, clusterId: string, nodePoolId: string): Promise<boolean> {
  try {
    await ctx.cs.getNodePool(clusterId, nodePoolId);
    return true;
  } catch (err) {
    if (isNotFound(err)) return false;
    throw err;
  }
}

/**
 * Milliseconds a Delete must still wait before deciding what CS holds, because a create sent just
 * before the Delete (its answer lost or timed out) may still land: only while the Resource never
 * recorded its CS id but a create may have gone out. 0 when nothing can be in flight.
 */
export function createSettleRemainingMs(ctx: LeftoverDeps, deleteOp: Operation, resource: Resource, createMayHaveGoneOut: boolean): number {
  if (resource.internalId || deleteOp.internalId || !createMayHaveGoneOut) return 0;
  const settledAt = Date.parse(deleteOp.startTime) + ctx.settings.createSettleMs;
  return Math.max(0, settledAt - ctx.clock.now());
}

/**
 * For a Delete without a Resource document: asks CS to delete whatever it still holds under the
 * resource's ARM name (a cluster, or a node pool under its parent's CS id). The count still there.
 */
export async function deleteWhatRemains(ctx: LeftoverDeps, arm: ArmResourceId): Promise<number> {
  if (arm.nodePoolName === undefined) {
    const ids = await clustersNamed(ctx, arm);
    await deleteClusters(ctx, ids);
    return ids.length;
  }
  const clusterId = await parentClusterId(ctx, arm);
  const nodePoolId = arm.nodePoolName.toLowerCase();
  if (!clusterId || !(await nodePoolExists(ctx, clusterId, nodePoolId))) return 0;
  await ctx.cs.deleteNodePool(clusterId, nodePoolId);
  return 1;
}
