import { randomUUID } from 'node:crypto';
import {
  DeadLettersRepository,
  ensureContainers,
  InvalidDocumentError,
  MissingTenantError,
  OperationsRepository,
  ResourcesRepository,
  SubscriptionsRepository,
  type OpstreamContainers,
} from '../../../src/cosmos';
import { InvalidIdError } from '../../../src/domain';
import { resourceDocumentId } from '../../../src/domain/ids';
import { startTestCosmos, type TestCosmos } from '../../helpers/cosmos';
import { uniqueName } from '../../helpers/wait-for';
import { clusterResource, newSubscription, operation } from './documents';

describe('Resources, Subscriptions and DeadLetters repositories', () => {
  let cosmos: TestCosmos;
  let containers: OpstreamContainers;

  beforeAll(async () => {
    cosmos = await startTestCosmos({ partitions: 2 });
    containers = await ensureContainers(cosmos.client, uniqueName('res'), { create: true });
  });
  afterAll(() => cosmos.close());

  describe('resources', () => {
    let resources: ResourcesRepository;
    beforeAll(() => {
      resources = new ResourcesRepository(containers.resources);
    });

    it('point-reads a resource by its ARM id in any casing', async () => {
      const s = newSubscription();
      const armId = s.clusterArmId('MyCluster');
      await resources.create(clusterResource(s.pk, armId, 'op-1'));
      expect((await resources.readByResourceId(armId.toUpperCase()))?.resourceId).toBe(armId);
      expect(await resources.readByResourceId(s.clusterArmId('other'))).toBeUndefined();
      expect(() => resources.readByResourceId('/subscriptions/x')).toThrow(InvalidIdError);
    });

    it('write-back: only by the active operation; terminal clears activeOperationId; no-ops write nothing', async () => {
      const s = newSubscription();
      const r = await resources.create(clusterResource(s.pk, s.clusterArmId('c1'), 'op-1'));
      expect(await resources.writeBack(s.pk, r.id, 'op-2', { provisioningState: 'Succeeded' })).toMatchObject({
        outcome: 'not-active',
        document: { activeOperationId: 'op-1', provisioningState: 'Accepted' },
      });
      expect(
        await resources.writeBack(s.pk, r.id, 'op-1', {
          provisioningState: 'Provisioning',
          internalId: '/api/aro_hcp/v1alpha1/clusters/abc',
        }),
      ).toMatchObject({
        outcome: 'updated',
        document: { activeOperationId: 'op-1', provisioningState: 'Provisioning', internalId: '/api/aro_hcp/v1alpha1/clusters/abc' },
      });
      expect((await resources.writeBack(s.pk, r.id, 'op-1', { provisioningState: 'Provisioning' })).outcome).toBe('unchanged');
      expect(await resources.writeBack(s.pk, r.id, 'op-1', { provisioningState: 'Succeeded' })).toMatchObject({
        outcome: 'updated',
        document: { activeOperationId: '', provisioningState: 'Succeeded' },
      });
      expect((await resources.writeBack(s.pk, r.id, 'op-1', { provisioningState: 'Failed' })).outcome).toBe('not-active');
      expect(await resources.writeBack(s.pk, 'missing', 'op-1', { provisioningState: 'Failed' })).toEqual({ outcome: 'not-found' });
    });

    it('pending and final CS ids, then delete (idempotent)', async () => {
      const s = newSubscription();
      const r = await resources.create(clusterResource(s.pk, s.clusterArmId('c2'), 'op-1'));
      await resources.setPendingInternalId(s.pk, r.id, '/api/aro_hcp/v1alpha1/clusters/chosen');
      await resources.setInternalId(s.pk, r.id, '/api/aro_hcp/v1alpha1/clusters/chosen');
      expect(await resources.read(s.pk, r.id)).toMatchObject({
        pendingInternalId: '/api/aro_hcp/v1alpha1/clusters/chosen',
        internalId: '/api/aro_hcp/v1alpha1/clusters/chosen',
      });
      expect(await resources.setInternalId(s.pk, r.id, 'Not A Href').catch((e: unknown) => e)).toMatchObject({ field: 'internalId' });
      expect(await resources.delete(s.pk, r.id)).toBe(true);
      expect(await resources.delete(s.pk, r.id)).toBe(false);
    });

    it("lists a cluster's node pools by their ARM ids in any casing, whatever their document ids", async () => {
      const s = newSubscription();
      const cluster = s.clusterArmId('Parent');
      const nodePool = (armId: string, id: string) => ({
        id,
        partitionKey: s.pk,
        resourceId: armId,
        resourceType: 'Microsoft.RedHatOpenShift/hcpOpenShiftClusters/nodePools' as const,
        internalId: '',
        activeOperationId: 'op',
        provisioningState: 'Succeeded' as const,
        properties: { version: '4.18', replicas: 2 },
      });
      await resources.create(clusterResource(s.pk, cluster, 'op'));
      await resources.create(nodePool(`${cluster}/nodePools/np1`, resourceDocumentId(`${cluster}/nodePools/np1`)));
      await resources.create(nodePool(`${cluster.toUpperCase()}/NODEPOOLS/np2`, 'written-under-another-id'));
      await resources.create(
        nodePool(`${s.clusterArmId('parent-2')}/nodePools/np1`, resourceDocumentId(`${s.clusterArmId('parent-2')}/nodePools/np1`)),
      );
      const listed = await resources.listChildrenOf(s.pk, cluster.toLowerCase());
      expect(listed.map((r) => r.id).sort()).toEqual([resourceDocumentId(`${cluster}/nodePools/np1`), 'written-under-another-id'].sort());
    });

    it('a node pool document with cluster properties is rejected on read with the field', async () => {
      const s = newSubscription();
      const armId = `${s.clusterArmId('c3')}/nodePools/np1`;
      const raw = { ...clusterResource(s.pk, armId, 'op'), resourceType: 'Microsoft.RedHatOpenShift/hcpOpenShiftClusters/nodePools' };
      await containers.resources.items.create(raw);
      const err = await resources.readByResourceId(armId).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(InvalidDocumentError);
      expect(err).toMatchObject({ field: 'properties.replicas' });
    });
  });

  describe('subscriptions', () => {
    it('reads by any casing and gives the tenant, or a typed error when it is missing', async () => {
      const subs = new SubscriptionsRepository(containers.subscriptions);
      const withTenant = newSubscription();
      const without = newSubscription();
      await subs.upsert({ id: withTenant.pk, state: 'Registered', properties: { tenantId: 'tenant-1' } });
      await subs.upsert({ id: without.pk, state: 'Warned' });
      expect((await subs.read(withTenant.subscriptionId))?.state).toBe('Registered');
      expect(await subs.tenantIdOf(withTenant.subscriptionId)).toBe('tenant-1');
      const noTenant = await subs.tenantIdOf(without.pk).catch((e: unknown) => e);
      expect(noTenant).toBeInstanceOf(MissingTenantError);
      expect((noTenant as Error).message).toContain('has no properties.tenantId');
      const noDoc = await subs.tenantIdOf(randomUUID()).catch((e: unknown) => e);
      expect(noDoc).toMatchObject({ retriable: false, context: { reason: 'no-subscription' } });
    });
  });

  describe('dead letters', () => {
    it('write (once per source document version), read, list, delete', async () => {
      const s = newSubscription();
      const deadLetters = new DeadLettersRepository(containers.deadLetters, { ttlSeconds: 3600 });
      const raw = { ...operation(s.pk, s.clusterArmId('c1')), status: 'Nope' };
      await containers.operations.items.create(raw);
      const err = (await new OperationsRepository(containers.operations)
        .read(s.pk, raw.id)
        .catch((e: unknown) => e)) as InvalidDocumentError;
      const written = await deadLetters.write({
        container: 'Operations',
        document: err.document,
        reason: 'validation',
        error: err,
        leaseToken: '0',
      });
      expect(written).toMatchObject({ outcome: 'written', truncated: false });
      // The same version found again (a replayed batch, a relist): the first dead letter stays.
      expect(
        await deadLetters.write({ container: 'Operations', document: err.document, reason: 'validation', error: err, leaseToken: '1' }),
      ).toMatchObject({
        outcome: 'exists',
        id: written.id,
      });
      const { items, invalid } = await deadLetters.list({ partitionKey: s.pk });
      expect(invalid).toEqual([]);
      expect(items).toHaveLength(1);
      expect(items[0]).toMatchObject({
        id: written.id,
        source: { container: 'Operations', id: raw.id, leaseToken: '0' },
        error: { path: '/status' },
        ttl: 3600,
      });
      expect((await deadLetters.read(s.pk, written.id))?.document).toMatchObject({ id: raw.id, status: 'Nope' });
      expect(await deadLetters.delete(s.pk, written.id)).toBe(true);
      expect((await deadLetters.list({ partitionKey: s.pk })).items).toEqual([]);
    });
  });
});
