import { isNotFound, type ArmResourceId, type ProcessorKit } from '../../src/kit';
import { parentClusterId } from '../kit/parent-cluster';

type LeftoverKit = Pick<ProcessorKit, 'cs' | 'resources'>;

/** Whether CS still has this node pool (under its parent's CS id; the node pool's CS id is its name). */
async function nodePoolExists(kit: LeftoverKit, clusterId: string, nodePoolId: string): Promise<boolean> {
  try {
    await kit.cs.getNodePool(clusterId, nodePoolId);
    return true;
  } catch (err) {
    if (isNotFound(err)) return false;
    throw err;
  }
}

/**
 * For a node pool Delete without a Resource document: asks CS to delete the node pool it still
 * holds under the parent's CS id and the node pool's name. The count still there (0 or 1).
 */
export async function removeNodePoolLeftovers(arm: ArmResourceId, kit: LeftoverKit): Promise<number> {
  const clusterId = await parentClusterId(kit, arm);
  const nodePoolId = (arm.nodePoolName ?? '').toLowerCase();
  if (!clusterId || !nodePoolId || !(await nodePoolExists(kit, clusterId, nodePoolId))) return 0;
  await kit.cs.deleteNodePool(clusterId, nodePoolId);
  return 1;
}
