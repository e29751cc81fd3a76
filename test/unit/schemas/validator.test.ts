import { check, isValid, validate } from '../../../src/schemas/validator';
import { ValidationError, isValidationError } from '../../../src/schemas/errors';
import {
  clusterResourceExample,
  csClusterExample,
  csClusterStatusExample,
  csNodePoolStatusExample,
  nodePoolResourceExample,
  operationExample,
  subscriptionExample,
  SUBSCRIPTION_KEY,
} from '../../fixtures/aro-hcp-documents';

function failure(kind: Parameters<typeof check>[0], value: unknown): ValidationError {
  const result = check(kind, value);
  if (result.ok) throw new Error(`expected ${kind} to be rejected`);
  return result.error;
}

describe('schemas accept the reference documents', () => {
  it.each([
    ['operation', operationExample()],
    [
      'operation with an error and no notification',
      operationExample({
        status: 'Failed',
        error: { code: 'MultipleErrorsOccurred', message: 'm', details: [{ code: 'InternalServerError', message: 'egress blocked' }] },
        notificationUri: undefined,
      }),
    ],
    [
      'delete operation of a node pool',
      operationExample({
        request: 'Delete',
        status: 'Deleting',
        externalId: nodePoolResourceExample().resourceId,
        internalId: '/api/aro_hcp/v1alpha1/clusters/abc/node_pools/np1',
      }),
    ],
  ])('%s', (_name, doc) => {
    const clean = JSON.parse(JSON.stringify(doc)) as unknown;
    expect(validate('operation', clean)).toBe(clean);
  });

  it('resources: cluster and node pool', () => {
    const cluster = validate('resource', clusterResourceExample());
    expect(cluster.resourceType).toBe('Microsoft.RedHatOpenShift/hcpOpenShiftClusters');
    const nodePool = validate('resource', nodePoolResourceExample());
    expect(nodePool.resourceType).toBe('Microsoft.RedHatOpenShift/hcpOpenShiftClusters/nodePools');
  });

  it('subscription, lock, dead letter and ARM notification', () => {
    expect(validate('subscription', subscriptionExample()).properties?.tenantId).toBe('72f988bf-86f1-41af-91ab-2d7cd011db47');
    expect(validate('lock', { id: SUBSCRIPTION_KEY, owner: 'opstream-1', ttl: 10, _etag: '"1"', _ts: 1 }).owner).toBe('opstream-1');
    const deadLetter = {
      id: 'dl-1',
      partitionKey: SUBSCRIPTION_KEY,
      source: { container: 'Operations', id: 'op-1', leaseToken: '0', lsn: 12 },
      reason: 'validation',
      error: { name: 'ValidationError', message: 'invalid operation', path: '/status' },
      deadLetteredAt: '2024-03-13T15:40:35Z',
      document: { id: 'op-1', status: 'Nope' },
      ttl: -1,
    };
    expect(validate('deadLetter', deadLetter).reason).toBe('validation');
    const notification = {
      id: '/subscriptions/x/providers/Microsoft.RedHatOpenShift/locations/eastus/hcpOperationStatuses/op-1',
      name: 'op-1',
      status: 'Succeeded',
      startTime: '2024-03-13T15:40:35Z',
      endTime: '2024-03-13T16:00:00Z',
    };
    expect(validate('armNotification', notification).status).toBe('Succeeded');
  });

  it('Clusters Service payloads', () => {
    expect(validate('csCluster', csClusterExample).azure?.managed_resource_group_name).toBe('MyRG-managed');
    expect(validate('csClusterStatus', csClusterStatusExample).provision_error_code).toBe('OCM4001');
    expect(validate('csNodePoolStatus', csNodePoolStatusExample).state.node_pool_state_value).toBe('installing');
    expect(
      validate('csNodePool', {
        kind: 'NodePool',
        id: 'np1',
        href: '/api/aro_hcp/v1alpha1/clusters/abc/node_pools/np1',
        replicas: 2,
        version: { id: 'openshift-v4.18.1' },
      }).replicas,
    ).toBe(2);
    expect(
      validate('csInflightCheck', {
        kind: 'InflightCheck',
        id: '1',
        name: 'egress',
        status: 'failed',
        details: { error: 'egress to quay.io blocked' },
      }).name,
    ).toBe('egress');
    expect(validate('csListPage', { kind: 'ClusterList', page: 1, size: 1, total: 1, items: [csClusterExample] }).total).toBe(1);
    expect(
      validate('csError', {
        kind: 'Error',
        id: '404',
        href: '/api/aro_hcp/v1alpha1/errors/404',
        code: 'CLUSTERS-MGMT-404',
        reason: "Cluster 'x' not found",
      }).code,
    ).toBe('CLUSTERS-MGMT-404');
    expect(
      validate('csClusterCreate', {
        id: 'abc',
        name: 'c',
        region: { id: 'eastus' },
        version: { id: '4.18' },
        azure: csClusterExample.azure,
      }).id,
    ).toBe('abc');
    expect(validate('csNodePoolUpdate', { replicas: 5 }).replicas).toBe(5);
  });

  it('unknown properties are tolerated (a newer frontend may add fields)', () => {
    expect(isValid('operation', operationExample({ somethingNew: { nested: true } }))).toBe(true);
  });
});

describe('schemas reject malformed documents with a message naming the document and field', () => {
  it('a missing required field', () => {
    const doc = operationExample();
    delete doc.status;
    const err = failure('operation', doc);
    expect(err.field).toBe('status');
    expect(err.pointer).toBe('/status');
    expect(err.message).toBe('invalid operation "8f0b8c3e-3b4c-4e5f-9a6b-7c8d9e0f1a2b": status is required');
  });

  it('a status outside the enum lists the allowed values (those of its request first)', () => {
    const err = failure('operation', operationExample({ status: 'Running' }));
    expect(err.message).toContain('status must be one of "Accepted", "Provisioning", "Succeeded", "Failed", "Canceled" (and 1 more)');
    expect(err.issues.map((i) => i.message)).toContain(
      'must be one of "Accepted", "Provisioning", "Updating", "Deleting", "Succeeded", "Failed", "Canceled"',
    );
  });

  it('an externalId that is not a cluster or node pool ARM id', () => {
    const err = failure('operation', operationExample({ externalId: '/subscriptions/abc/resourceGroups/rg' }));
    expect(err.field).toBe('externalId');
    expect(err.message).toContain('must match format "arm-resource-id"');
  });

  it('a partition key that is not a lower-cased subscription id', () => {
    expect(failure('operation', operationExample({ partitionKey: SUBSCRIPTION_KEY.toUpperCase() })).field).toBe('partitionKey');
  });

  it('a timestamp that is not RFC 3339', () => {
    const err = failure('operation', operationExample({ lastTransitionTime: '13/03/2024 15:40' }));
    expect(err.field).toBe('lastTransitionTime');
    expect(err.message).toContain('date-time');
  });

  it('a nested error without a code', () => {
    const err = failure('operation', operationExample({ status: 'Failed', error: { message: 'x' } }));
    expect(err.field).toBe('error.code');
  });

  it('an internalId that is not a lower-cased CS href', () => {
    expect(failure('operation', operationExample({ internalId: '/api/aro_hcp/v1alpha1/clusters/ABC' })).field).toBe('internalId');
  });

  it('Cosmos system fields of the wrong type', () => {
    expect(failure('operation', operationExample({ _ts: 'yesterday' })).field).toBe('_ts');
    expect(failure('operation', operationExample({ ttl: -2 })).field).toBe('ttl');
  });

  it('a resource of an unknown type names resourceType', () => {
    const err = failure('resource', clusterResourceExample({ resourceType: 'Microsoft.Compute/virtualMachines' }));
    expect(err.field).toBe('resourceType');
    expect(err.message).toContain('resource "1c2d3e4f-0000-4000-8000-000000000001"');
  });

  it('a node pool resource without a size names properties.replicas', () => {
    const doc = nodePoolResourceExample({ properties: { version: '4.18' } });
    expect(failure('resource', doc).field).toBe('properties.replicas');
  });

  it('a cluster resource with node pool properties is checked against the cluster shape', () => {
    const doc = clusterResourceExample({ properties: { version: '4.18', replicas: 3 } });
    expect(failure('resource', doc).field).toBe('properties.region');
  });

  it('something that is not an object at all', () => {
    const err = failure('subscription', 'not a document');
    expect(err.field).toBe('(document)');
    expect(err.documentId).toBeUndefined();
    expect(err.message).toBe('invalid subscription: (document) must be object');
  });

  it('a lock id with upper-case letters', () => {
    expect(failure('lock', { id: SUBSCRIPTION_KEY.toUpperCase(), owner: 'x' }).field).toBe('id');
  });

  it('an ARM notification with a non-terminal status', () => {
    const err = failure('armNotification', {
      id: 'x',
      name: 'y',
      status: 'Accepted',
      startTime: '2024-03-13T15:40:35Z',
      endTime: '2024-03-13T15:40:35Z',
    });
    expect(err.message).toContain('status must be one of "Succeeded", "Failed", "Canceled"');
  });

  it('a CS status without a state, and a list page without items', () => {
    expect(failure('csClusterStatus', { kind: 'ClusterStatus', id: 'x' }).field).toBe('state');
    expect(failure('csListPage', { kind: 'ClusterList', page: 1, size: 0, total: 0 }).field).toBe('items');
  });

  it('an empty PATCH body', () => {
    expect(failure('csClusterUpdate', {}).message).toContain('must NOT have fewer than 1 properties');
  });

  it('validate throws the typed error, never a crash', () => {
    expect(() => validate('operation', null)).toThrow(ValidationError);
    try {
      validate('operation', operationExample({ request: 'Patch' }));
    } catch (err) {
      expect(isValidationError(err)).toBe(true);
      expect((err as ValidationError).retriable).toBe(false);
      expect((err as ValidationError).context).toMatchObject({ schemaKind: 'operation', field: 'request' });
    }
    expect.assertions(4);
  });
});
