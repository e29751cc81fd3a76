/** The ARM resource types opstream handles, with their canonical casing. */
import type { ClusterResource, NodePoolResource, Resource } from './types.generated';

export const RESOURCE_PROVIDER = 'Microsoft.RedHatOpenShift';
export const CLUSTER_RESOURCE_TYPE = 'Microsoft.RedHatOpenShift/hcpOpenShiftClusters' as const;
export const NODE_POOL_RESOURCE_TYPE = 'Microsoft.RedHatOpenShift/hcpOpenShiftClusters/nodePools' as const;

export type ResourceType = typeof CLUSTER_RESOURCE_TYPE | typeof NODE_POOL_RESOURCE_TYPE;

export function isClusterResource(resource: Resource): resource is ClusterResource {
  return resource.resourceType === CLUSTER_RESOURCE_TYPE;
}

export function isNodePoolResource(resource: Resource): resource is NodePoolResource {
  return resource.resourceType === NODE_POOL_RESOURCE_TYPE;
}
