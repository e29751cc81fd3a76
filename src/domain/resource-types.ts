/** The ARM resource types opstream handles, with their canonical casing. */
import type { ClusterResource, ExternalAuthResource, NodePoolResource, Resource } from './types.generated';

export const RESOURCE_PROVIDER = 'Microsoft.RedHatOpenShift';
export const CLUSTER_RESOURCE_TYPE = 'Microsoft.RedHatOpenShift/hcpOpenShiftClusters' as const;
export const NODE_POOL_RESOURCE_TYPE = 'Microsoft.RedHatOpenShift/hcpOpenShiftClusters/nodePools' as const;
export const EXTERNAL_AUTH_RESOURCE_TYPE = 'Microsoft.RedHatOpenShift/hcpOpenShiftClusters/externalAuths' as const;

export type ResourceType = typeof CLUSTER_RESOURCE_TYPE | typeof NODE_POOL_RESOURCE_TYPE | typeof EXTERNAL_AUTH_RESOURCE_TYPE;

export function isClusterResource(resource: Resource): resource is ClusterResource {
  return resource.resourceType === CLUSTER_RESOURCE_TYPE;
}

export function isNodePoolResource(resource: Resource): resource is NodePoolResource {
  return resource.resourceType === NODE_POOL_RESOURCE_TYPE;
}

export function isExternalAuthResource(resource: Resource): resource is ExternalAuthResource {
  return resource.resourceType === EXTERNAL_AUTH_RESOURCE_TYPE;
}
