/**
 * Search expressions for `GET /clusters?search=…` (OCM search syntax). Values are always quoted with
 * `quoteSearchValue`, which doubles single quotes, so no resource name can change the query.
 */
import type { CsCluster, CsClusterAzure } from '../domain/types.generated';

/** The Azure identity a cluster is created with and found again by. */
export interface AzureIdentity {
  readonly subscriptionId: string;
  readonly resourceGroupName: string;
  readonly resourceName: string;
  readonly tenantId: string;
  readonly managedResourceGroupName: string;
}

/** `'value'` with every `'` doubled: the only escape OCM search strings have. */
export function quoteSearchValue(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}

/**
 * The `azure` fields as opstream sends them on create and searches them: subscription, resource
 * group and resource name lower-cased (ARM names are case-insensitive), tenant and managed
 * resource group as given.
 */
export function azureFields(
  identity: AzureIdentity,
): Pick<CsClusterAzure, 'subscription_id' | 'resource_group_name' | 'resource_name' | 'tenant_id' | 'managed_resource_group_name'> {
  return {
    subscription_id: identity.subscriptionId.toLowerCase(),
    resource_group_name: identity.resourceGroupName.toLowerCase(),
    resource_name: identity.resourceName.toLowerCase(),
    tenant_id: identity.tenantId,
    managed_resource_group_name: identity.managedResourceGroupName,
  };
}

/** `azure.subscription_id = '…' and … and azure.managed_resource_group_name = '…'`. */
export function azureIdentitySearch(identity: AzureIdentity): string {
  return Object.entries(azureFields(identity))
    .map(([field, value]) => `azure.${field} = ${quoteSearchValue(value)}`)
    .join(' and ');
}

/** What ARM names a cluster by: whatever tenant or managed resource group it was created with. */
export type ArmResourceName = Pick<AzureIdentity, 'subscriptionId' | 'resourceGroupName' | 'resourceName'>;

/** `azure.subscription_id = '…' and azure.resource_group_name = '…' and azure.resource_name = '…'`. */
export function armNameSearch(name: ArmResourceName): string {
  const { subscription_id, resource_group_name, resource_name } = azureFields({ ...name, tenantId: '', managedResourceGroupName: '' });
  return Object.entries({ subscription_id, resource_group_name, resource_name })
    .map(([field, value]) => `azure.${field} = ${quoteSearchValue(value)}`)
    .join(' and ');
}

/** Exact re-check of a search result (the service's matching may be looser than equality). */
export function matchesAzureIdentity(cluster: CsCluster, identity: AzureIdentity): boolean {
  const want = azureFields(identity);
  const got = cluster.azure;
  return (
    got !== undefined &&
    got.subscription_id === want.subscription_id &&
    got.resource_group_name === want.resource_group_name &&
    got.resource_name === want.resource_name &&
    got.tenant_id === want.tenant_id &&
    got.managed_resource_group_name === want.managed_resource_group_name
  );
}

/** Whether ARM names this cluster so (subscription, resource group, name; exact, after lower-casing). */
export function matchesArmName(cluster: CsCluster, name: ArmResourceName): boolean {
  const want = azureFields({ ...name, tenantId: '', managedResourceGroupName: '' });
  const got = cluster.azure;
  return (
    got !== undefined &&
    got.subscription_id === want.subscription_id &&
    got.resource_group_name === want.resource_group_name &&
    got.resource_name === want.resource_name
  );
}
