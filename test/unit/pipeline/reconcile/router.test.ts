import { defaultProcessors } from '../../../../processors/registry';
import { ClustersServiceClient } from '../../../../src/clusters-service';
import { systemClock } from '../../../../src/util/clock';
import { CLUSTER_RESOURCE_TYPE, NODE_POOL_RESOURCE_TYPE } from '../../../../src/domain/resource-types';
import type { OperationProcessor } from '../../../../src/pipeline/reconcile/processor';
import { checkRegistry, phaseOf, route } from '../../../../src/pipeline/reconcile/router';

const href = '/api/aro_hcp/v1alpha1/clusters/abc';
// Routing only: the CS client is never called, so nothing listens at its URL.
const processors = defaultProcessors({
  cs: new ClustersServiceClient({ baseUrl: 'http://127.0.0.1:9' }),
  clock: systemClock,
  follow: { initialDelayMs: 100, maxDelayMs: 1000, batchTickMs: 0, batchWindowMs: 0, firstCheckHitRatio: 0.8, updateCooldownMs: 60_000 },
});

describe('router', () => {
  it.each([
    ['Create', '', 'Accepted', 'dispatch'],
    ['Create', href, 'Accepted', 'follow'],
    ['Create', href, 'Provisioning', 'follow'],
    ['Update', href, 'Accepted', 'dispatch'],
    ['Update', href, 'Updating', 'follow'],
    ['Delete', href, 'Deleting', 'dispatch'],
  ] as const)('%s with internalId "%s" in %s is in phase %s', (request, internalId, status, phase) => {
    expect(phaseOf({ request, internalId, status })).toBe(phase);
  });

  it.each([
    [CLUSTER_RESOURCE_TYPE, 'Create', '', 'Accepted', 'cluster-create'],
    [CLUSTER_RESOURCE_TYPE, 'Create', href, 'Provisioning', 'cluster-create-follow'],
    [CLUSTER_RESOURCE_TYPE, 'Update', href, 'Accepted', 'cluster-update'],
    [CLUSTER_RESOURCE_TYPE, 'Update', href, 'Updating', 'cluster-update-follow'],
    [CLUSTER_RESOURCE_TYPE, 'Delete', href, 'Deleting', 'cluster-delete'],
    [NODE_POOL_RESOURCE_TYPE, 'Create', '', 'Accepted', 'node-pool-create'],
    [NODE_POOL_RESOURCE_TYPE, 'Create', `${href}/node_pools/np1`, 'Accepted', 'node-pool-create-follow'],
    [NODE_POOL_RESOURCE_TYPE, 'Update', href, 'Accepted', 'node-pool-update'],
    [NODE_POOL_RESOURCE_TYPE, 'Update', href, 'Updating', 'node-pool-update-follow'],
    [NODE_POOL_RESOURCE_TYPE, 'Delete', href, 'Deleting', 'node-pool-delete'],
  ] as const)('%s %s (internalId "%s", %s) goes to %s', (type, request, internalId, status, name) => {
    expect(route(processors, type, { request, internalId, status })?.name).toBe(name);
  });

  it.each(['Accepted', 'Provisioning'] as const)('a credential request (%s) goes to credential-request in every phase', (status) => {
    expect(route(processors, CLUSTER_RESOURCE_TYPE, { request: 'RequestCredential', internalId: '', status })?.name).toBe(
      'credential-request',
    );
  });

  it.each(['Accepted', 'Deleting'] as const)('a revocation (%s) goes to credentials-revoke', (status) => {
    expect(route(processors, CLUSTER_RESOURCE_TYPE, { request: 'RevokeCredentials', internalId: href, status })?.name).toBe(
      'credentials-revoke',
    );
  });

  it('has no processor for credentials of a node pool', () => {
    expect(
      route(processors, NODE_POOL_RESOURCE_TYPE, { request: 'RequestCredential', internalId: '', status: 'Accepted' }),
    ).toBeUndefined();
  });

  it('refuses two processors on one route', () => {
    const twin = (name: string): OperationProcessor => ({
      name,
      resourceType: CLUSTER_RESOURCE_TYPE,
      request: 'Delete',
      phase: 'any',
      reconcile: async () => ({ kind: 'done' }),
    });
    expect(() => checkRegistry([twin('a'), twin('b')])).toThrow(
      'processors "a" and "b" both handle Microsoft.RedHatOpenShift/hcpOpenShiftClusters Delete dispatch',
    );
  });
});
