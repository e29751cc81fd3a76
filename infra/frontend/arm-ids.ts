/**
 * ARM ids as the frontend writes them. The Resource document id is derived from the ARM id
 * (lower-cased, `/` → `|`, since Cosmos ids cannot hold `/`), so a reader can point-read it.
 */
export const CLUSTER_TYPE = 'Microsoft.RedHatOpenShift/hcpOpenShiftClusters';
export const NODE_POOL_TYPE = 'Microsoft.RedHatOpenShift/hcpOpenShiftClusters/nodePools';
export const EXTERNAL_AUTH_TYPE = 'Microsoft.RedHatOpenShift/hcpOpenShiftClusters/externalAuths';

export function clusterArmId(subscriptionId: string, resourceGroup: string, cluster: string): string {
  return `/subscriptions/${subscriptionId}/resourceGroups/${resourceGroup}/providers/Microsoft.RedHatOpenShift/hcpOpenShiftClusters/${cluster}`;
}

export function nodePoolArmId(subscriptionId: string, resourceGroup: string, cluster: string, nodePool: string): string {
  return `${clusterArmId(subscriptionId, resourceGroup, cluster)}/nodePools/${nodePool}`;
}

export function externalAuthArmId(subscriptionId: string, resourceGroup: string, cluster: string, name: string): string {
  return `${clusterArmId(subscriptionId, resourceGroup, cluster)}/externalAuths/${name}`;
}

export function resourceDocumentId(armId: string): string {
  return armId.toLowerCase().replace(/\//g, '|');
}

export function operationStatusId(subscriptionId: string, location: string, operationDocId: string): string {
  return `/subscriptions/${subscriptionId}/providers/Microsoft.RedHatOpenShift/locations/${location}/hcpOperationStatuses/${operationDocId}`;
}
