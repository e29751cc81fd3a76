import { parseCsHref, type ArmResourceId, type ProcessorKit } from '../../src/kit';

/**
 * CS cluster id of a child resource's parent (a node pool's, an external auth's), from the parent
 * Resource: its recorded id, or the one a create chose before calling CS. Undefined when the
 * cluster never got one (then nothing of the child can exist in CS).
 */
export async function parentClusterId(kit: Pick<ProcessorKit, 'resources'>, arm: ArmResourceId): Promise<string | undefined> {
  const parent = await kit.resources.findFor(arm.partitionKey, arm.clusterResourceId);
  const href = parent?.internalId || (parent && 'pendingInternalId' in parent ? parent.pendingInternalId : '');
  return href ? parseCsHref(href).clusterId : undefined;
}
