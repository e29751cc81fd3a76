import { isNotFound, type ArmResourceId, type ProcessorKit } from '../../src/kit';
import { parentClusterId } from '../kit/parent-cluster';

type LeftoverKit = Pick<ProcessorKit, 'cs' | 'resources'>;

/**
 * For an external auth Delete without a Resource document: asks CS to delete the external auth it
 * still holds under the parent's CS id and the lower-cased ARM name (its CS id). The count still
 * there (0 or 1).
 */
export async function removeExternalAuthLeftovers(arm: ArmResourceId, kit: LeftoverKit): Promise<number> {
  const clusterId = await parentClusterId(kit, arm);
  const externalAuthId = (arm.externalAuthName ?? '').toLowerCase();
  if (!clusterId || !externalAuthId) return 0;
  try {
    await kit.cs.getExternalAuth(clusterId, externalAuthId);
  } catch (err) {
    if (isNotFound(err)) return 0;
    throw err;
  }
  await kit.cs.deleteExternalAuth(clusterId, externalAuthId);
  return 1;
}
