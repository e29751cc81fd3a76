import { randomUUID } from 'node:crypto';
import { CLUSTER_RESOURCE_TYPE, resourceDocumentId } from '../../../src/domain';
import type { ClusterResource, Operation, OperationStatus } from '../../../src/domain/types';

/** Documents for one fresh subscription, so tests never share partitions. */
export function newSubscription(): { subscriptionId: string; pk: string; clusterArmId: (name: string) => string } {
  const subscriptionId = randomUUID().toUpperCase();
  return {
    subscriptionId,
    pk: subscriptionId.toLowerCase(),
    clusterArmId: (name) =>
      `/subscriptions/${subscriptionId}/resourceGroups/RG/providers/Microsoft.RedHatOpenShift/hcpOpenShiftClusters/${name}`,
  };
}

export function operation(
  pk: string,
  externalId: string,
  status: OperationStatus = 'Accepted',
  overrides: Partial<Operation> = {},
): Operation {
  const id = randomUUID();
  return {
    id,
    partitionKey: pk,
    // A request that can be in `status` (schemas/operation.schema.json ties them).
    request: status === 'Deleting' ? 'Delete' : status === 'Updating' ? 'Update' : 'Create',
    externalId,
    internalId: '',
    operationId: `/subscriptions/${pk}/providers/Microsoft.RedHatOpenShift/locations/eastus/hcpOperationStatuses/${id}`,
    startTime: '2024-03-13T15:40:35.000Z',
    lastTransitionTime: '2024-03-13T15:40:35.000Z',
    status,
    ...overrides,
  };
}

export function clusterResource(pk: string, armId: string, activeOperationId: string): ClusterResource {
  return {
    id: resourceDocumentId(armId),
    partitionKey: pk,
    resourceId: armId,
    resourceType: CLUSTER_RESOURCE_TYPE,
    internalId: '',
    activeOperationId,
    provisioningState: 'Accepted',
    properties: { version: '4.18', region: 'eastus', managedResourceGroupName: 'RG-managed' },
  };
}
