import { InvalidIdError, isInvalidIdError } from '../../../src/domain/errors';
import {
  armIdEquals,
  clusterHref,
  externalAuthHref,
  nodePoolHref,
  parseArmResourceId,
  parseCsHref,
  resourceDocumentId,
  subscriptionKey,
} from '../../../src/domain/ids';

const SUB = '0B3D1F5A-8A4C-4F4E-9C2B-1D2E3F4A5B6C';

describe('ARM resource ids', () => {
  it('parse a cluster id, keeping value casing and lower-casing the partition key', () => {
    const id = `/subscriptions/${SUB}/resourceGroups/MyRG/providers/Microsoft.RedHatOpenShift/hcpOpenShiftClusters/MyCluster`;
    expect(parseArmResourceId(id)).toEqual({
      id,
      subscriptionId: SUB,
      partitionKey: SUB.toLowerCase(),
      resourceGroupName: 'MyRG',
      clusterName: 'MyCluster',
      resourceType: 'Microsoft.RedHatOpenShift/hcpOpenShiftClusters',
      clusterResourceId: id,
    });
  });

  it('parse a node pool id whose segment names use another casing', () => {
    const id = `/SUBSCRIPTIONS/${SUB}/resourcegroups/rg/PROVIDERS/microsoft.redhatopenshift/HCPOPENSHIFTCLUSTERS/c1/NODEPOOLS/Pool-1`;
    const parsed = parseArmResourceId(id);
    expect(parsed).toMatchObject({
      clusterName: 'c1',
      nodePoolName: 'Pool-1',
      resourceType: 'Microsoft.RedHatOpenShift/hcpOpenShiftClusters/nodePools',
    });
    expect(parsed.clusterResourceId).toBe(
      `/subscriptions/${SUB}/resourceGroups/rg/providers/Microsoft.RedHatOpenShift/hcpOpenShiftClusters/c1`,
    );
  });

  it('parse an external auth id (the segment name in any casing)', () => {
    const id = `/subscriptions/${SUB}/resourceGroups/rg/providers/Microsoft.RedHatOpenShift/hcpOpenShiftClusters/c1/EXTERNALAUTHS/Entra-1`;
    const parsed = parseArmResourceId(id);
    expect(parsed).toMatchObject({
      clusterName: 'c1',
      externalAuthName: 'Entra-1',
      resourceType: 'Microsoft.RedHatOpenShift/hcpOpenShiftClusters/externalAuths',
    });
    expect(parsed.nodePoolName).toBeUndefined();
    expect(parsed.clusterResourceId).toBe(
      `/subscriptions/${SUB}/resourceGroups/rg/providers/Microsoft.RedHatOpenShift/hcpOpenShiftClusters/c1`,
    );
  });

  it.each([
    [
      'no leading slash',
      `subscriptions/${SUB}/resourceGroups/rg/providers/Microsoft.RedHatOpenShift/hcpOpenShiftClusters/c`,
      'must start with',
    ],
    ['subscription not a GUID', '/subscriptions/abc/resourceGroups/rg/providers/Microsoft.RedHatOpenShift/hcpOpenShiftClusters/c', 'GUID'],
    ['missing resource group', `/subscriptions/${SUB}/providers/Microsoft.RedHatOpenShift/hcpOpenShiftClusters/c`, 'resourceGroups'],
    [
      'another provider',
      `/subscriptions/${SUB}/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/c`,
      'providers/Microsoft.RedHatOpenShift',
    ],
    [
      'missing cluster name',
      `/subscriptions/${SUB}/resourceGroups/rg/providers/Microsoft.RedHatOpenShift/hcpOpenShiftClusters/`,
      'hcpOpenShiftClusters/{name}',
    ],
    [
      'unknown child type',
      `/subscriptions/${SUB}/resourceGroups/rg/providers/Microsoft.RedHatOpenShift/hcpOpenShiftClusters/c/versions/v`,
      'nodePools',
    ],
    [
      'external auth without a name',
      `/subscriptions/${SUB}/resourceGroups/rg/providers/Microsoft.RedHatOpenShift/hcpOpenShiftClusters/c/externalAuths/`,
      'externalAuths',
    ],
    [
      'trailing segment after node pool',
      `/subscriptions/${SUB}/resourceGroups/rg/providers/Microsoft.RedHatOpenShift/hcpOpenShiftClusters/c/nodePools/n/x`,
      'nodePools',
    ],
  ])('reject %s with a reason', (_name, id, reason) => {
    expect(() => parseArmResourceId(id)).toThrow(InvalidIdError);
    try {
      parseArmResourceId(id);
    } catch (err) {
      expect(isInvalidIdError(err) && err.retriable).toBe(false);
      expect((err as Error).message).toContain(reason);
    }
  });

  it('compare ignoring case', () => {
    expect(armIdEquals(`/subscriptions/${SUB}/resourceGroups/RG`, `/SUBSCRIPTIONS/${SUB.toLowerCase()}/resourcegroups/rg`)).toBe(true);
    expect(armIdEquals('/a/b', '/a/c')).toBe(false);
  });

  it('map to a Resources document id that is the same for any casing', () => {
    const id = `/subscriptions/${SUB}/resourceGroups/MyRG/providers/Microsoft.RedHatOpenShift/hcpOpenShiftClusters/C1`;
    expect(resourceDocumentId(id)).toBe(
      `|subscriptions|${SUB.toLowerCase()}|resourcegroups|myrg|providers|microsoft.redhatopenshift|hcpopenshiftclusters|c1`,
    );
    expect(resourceDocumentId(id.toUpperCase())).toBe(resourceDocumentId(id));
  });

  it('subscription keys are lower-cased GUIDs', () => {
    expect(subscriptionKey(SUB)).toBe(SUB.toLowerCase());
    expect(() => subscriptionKey('not-a-guid')).toThrow(InvalidIdError);
  });
});

describe('Clusters Service hrefs', () => {
  it('build and parse cluster and node pool hrefs', () => {
    expect(clusterHref('abc')).toBe('/api/aro_hcp/v1alpha1/clusters/abc');
    expect(parseCsHref(clusterHref('abc'))).toEqual({ href: '/api/aro_hcp/v1alpha1/clusters/abc', clusterId: 'abc' });
    expect(parseCsHref(nodePoolHref('abc', 'np-1'))).toEqual({
      href: '/api/aro_hcp/v1alpha1/clusters/abc/node_pools/np-1',
      clusterId: 'abc',
      nodePoolId: 'np-1',
    });
  });

  it('build and parse external auth hrefs', () => {
    expect(externalAuthHref('abc', 'entra-1')).toBe('/api/aro_hcp/v1alpha1/clusters/abc/external_auth_config/external_auths/entra-1');
    expect(parseCsHref(externalAuthHref('abc', 'entra-1'))).toEqual({
      href: '/api/aro_hcp/v1alpha1/clusters/abc/external_auth_config/external_auths/entra-1',
      clusterId: 'abc',
      externalAuthId: 'entra-1',
    });
    expect(() => parseCsHref('/api/aro_hcp/v1alpha1/clusters/abc/external_auth_config/external_auths')).toThrow(InvalidIdError);
  });

  it('parse a cluster and its break-glass credentials under clusters_mgmt', () => {
    expect(parseCsHref('/api/clusters_mgmt/v1/clusters/abc')).toEqual({ href: '/api/clusters_mgmt/v1/clusters/abc', clusterId: 'abc' });
    expect(parseCsHref('/api/clusters_mgmt/v1/clusters/abc/break_glass_credentials/bgc1')).toEqual({
      href: '/api/clusters_mgmt/v1/clusters/abc/break_glass_credentials/bgc1',
      clusterId: 'abc',
      credentialId: 'bgc1',
    });
  });

  it.each([
    '/api/aro_hcp/v1alpha1/clusters/ABC',
    '/api/clusters_mgmt/v1/clusters/abc/node_pools/np1',
    '/api/aro_hcp/v1alpha1/clusters/abc/break_glass_credentials/bgc1',
    '/api/aro_hcp/v1alpha1/clusters/abc/status',
    '',
  ])('reject %j', (href) => {
    expect(() => parseCsHref(href)).toThrow(/Clusters Service href/);
  });
});
