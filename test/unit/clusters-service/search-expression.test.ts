import { azureFields, azureIdentitySearch, matchesAzureIdentity, quoteSearchValue } from '../../../src/clusters-service/search-expression';
import { parseSearch } from '@opstream/clusters-service-simulator/search';
import type { CsCluster } from '../../../src/domain/types.generated';

const identity = {
  subscriptionId: '0B3D1F5A-8A4C-4F4E-9C2B-1D2E3F4A5B6C',
  resourceGroupName: 'MyRG',
  resourceName: 'MyCluster',
  tenantId: 'Tenant-1',
  managedResourceGroupName: 'MyRG-Managed',
};

describe('Clusters Service search expressions', () => {
  it('lower-case subscription, group and name; keep tenant and managed group as given', () => {
    expect(azureIdentitySearch(identity)).toBe(
      "azure.subscription_id = '0b3d1f5a-8a4c-4f4e-9c2b-1d2e3f4a5b6c' and azure.resource_group_name = 'myrg' and " +
        "azure.resource_name = 'mycluster' and azure.tenant_id = 'Tenant-1' and azure.managed_resource_group_name = 'MyRG-Managed'",
    );
  });

  it.each([
    ["o'brien", "'o''brien'"],
    ["'", "''''"],
    ["x' or azure.tenant_id = 'y", "'x'' or azure.tenant_id = ''y'"],
    ['plain', "'plain'"],
  ])('quote %j as %s', (value, quoted) => {
    expect(quoteSearchValue(value)).toBe(quoted);
  });

  it('a name crafted to inject a term stays one value of one term', () => {
    const evil = "x' and azure.tenant_id = 'other";
    const terms = parseSearch(azureIdentitySearch({ ...identity, resourceName: evil }));
    expect(terms).toHaveLength(5);
    expect(terms.find((t) => t.field === 'azure.resource_name')?.value).toBe(evil.toLowerCase());
    expect(terms.find((t) => t.field === 'azure.tenant_id')?.value).toBe('Tenant-1');
  });

  it('re-checks results by exact comparison', () => {
    const cluster: CsCluster = { kind: 'Cluster', id: 'c1', href: '/api/aro_hcp/v1alpha1/clusters/c1', azure: azureFields(identity) };
    expect(matchesAzureIdentity(cluster, identity)).toBe(true);
    expect(matchesAzureIdentity(cluster, { ...identity, resourceGroupName: 'myrg' })).toBe(true);
    expect(matchesAzureIdentity(cluster, { ...identity, tenantId: 'tenant-1' })).toBe(false);
    expect(matchesAzureIdentity({ ...cluster, azure: undefined }, identity)).toBe(false);
  });
});
