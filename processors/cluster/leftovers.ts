import type { ArmResourceId, ProcessorKit } from '../../src/kit';

/**
 * What a cluster Delete must see gone before it is done: Clusters Service holds nothing for the
 * resource — neither the id on the documents nor anything found by its ARM name (a create whose
 * answer was lost, or one that went out under another id).
 */
type LeftoverKit = Pick<ProcessorKit, 'cs'>;

/** CS ids of every cluster ARM knows by this resource's name. */
export async function clustersNamed(kit: LeftoverKit, arm: ArmResourceId): Promise<string[]> {
  const found = await kit.cs.findClustersByArmName({
    subscriptionId: arm.subscriptionId,
    resourceGroupName: arm.resourceGroupName,
    resourceName: arm.clusterName,
  });
  return found.map((c) => c.id);
}

/** Asks CS to delete each cluster; true when at least one still existed. */
export async function deleteClusters(kit: LeftoverKit, clusterIds: Iterable<string>): Promise<boolean> {
  let requested = false;
  for (const id of new Set(clusterIds)) if (!(await kit.cs.deleteCluster(id)).alreadyGone) requested = true;
  return requested;
}

/** For a cluster Delete without a Resource document: deletes whatever CS holds under the ARM name; the count still there. */
export async function removeClusterLeftovers(arm: ArmResourceId, kit: LeftoverKit): Promise<number> {
  const ids = await clustersNamed(kit, arm);
  await deleteClusters(kit, ids);
  return ids.length;
}
