import { randomBytes } from 'crypto';
import {
  CLUSTER_RESOURCE_TYPE,
  MissingTenantError,
  TerminalError,
  again,
  azureFields,
  clusterHref,
  endOperation,
  isClusterResource,
  isConflict,
  isOutcomeUnknown,
  parseCsHref,
  type AzureIdentity,
  type OperationProcessor,
} from '../../src/kit';
import { failOnPermanentRefusal } from '../kit/clusters-service-failure';
import { claimPendingInternalId, recordInternalId } from '../kit/resource-ids';
import { createExtras } from './desired-state';
import { clusterTarget, type ClusterLooks } from './looks';

/**
 * Cluster create dispatch: the backend, not the frontend, creates the cluster in Clusters Service,
 * so that exactly one CS cluster exists per resource whatever crashes or lease moves happen in between:
 * 1. the Resource already has its CS id (a crash after step 5): copy it to the Operation, done;
 * 2. choose a CS id and persist it on the Resource (`pendingInternalId`) before any POST — only
 *    if none is there yet, so every handler of this create uses the same id;
 * 3. search CS by Azure identity (while step 2 runs): one match → adopt it;
 * 4. none → re-read the Resource (a Delete may have taken it over while we searched), then POST
 *    with the chosen id; a duplicate (409, the same id sent by another handler) or an unknown
 *    outcome (timeout, lost response) is settled by searching again next run;
 * 5. write the CS id on the Resource, then on the Operation (whose `internalId` moves it to the follow).
 * A handler whose lease moved is fenced: its CS calls are cancelled and its writes refused.
 */
export const clusterCreate = (looks: ClusterLooks): OperationProcessor => ({
  name: 'cluster-create',
  resourceType: CLUSTER_RESOURCE_TYPE,
  request: 'Create',
  phase: 'dispatch',
  async reconcile(work, kit) {
    const { op, resource, arm, logger } = work;
    if (!isClusterResource(resource)) throw new TerminalError(`resource ${resource.id} is not a cluster`);
    const pk = op.partitionKey;
    if (resource.internalId) {
      await kit.recordDispatched(op, resource.internalId, 'Provisioning');
      return again(0, 'recovered the CS id from the resource');
    }

    let tenantId: string;
    try {
      tenantId = await kit.subscriptions.tenantIdOf(arm.subscriptionId);
    } catch (err) {
      if (!(err instanceof MissingTenantError)) throw err;
      return endOperation(kit, op, { status: 'Failed', error: { code: 'InvalidSubscriptionState', message: err.message } }, resource);
    }
    const managedResourceGroupName = resource.properties.managedResourceGroupName;
    if (!managedResourceGroupName) {
      const error = {
        code: 'InvalidRequestContent',
        message: 'The cluster has no managed resource group name',
        target: 'properties.managedResourceGroupName',
      };
      return endOperation(kit, op, { status: 'Failed', error }, resource);
    }

    const identity: AzureIdentity = {
      subscriptionId: arm.subscriptionId,
      resourceGroupName: arm.resourceGroupName,
      resourceName: arm.clusterName,
      tenantId,
      managedResourceGroupName,
    };
    // The search runs while the id is claimed: neither depends on the other, and Clusters Service
    // hears of the create a locked write sooner. A cluster POSTed by another handler after the search
    // is caught as before: by its 409 (the same claimed id), then the search of the next run.
    const searching = kit.cs.findClusterByAzureIdentity(identity);
    searching.catch(() => undefined); // awaited below unless the claim ends the run first
    const claimed = await claimPendingInternalId(kit, op, resource, clusterHref(randomBytes(16).toString('hex')));
    if (claimed.outcome === 'not-found') return again(kit.settings.waitDelayMs, 'resource vanished');
    if (claimed.outcome === 'superseded') return again(0, 'superseded while dispatching');
    const recordedHref = claimed.resource.internalId;
    if (recordedHref) return again(0, 'another handler recorded the CS id');
    const chosenId = parseCsHref(claimed.resource.pendingInternalId ?? '').clusterId;

    let cluster = await searching;
    if (cluster) {
      logger.info('adopting the Clusters Service cluster found by Azure identity', { csClusterId: cluster.id });
    } else {
      // The search may have taken long: a Delete that took the Resource over since must not race a create.
      const current = await kit.resources.read(pk, resource.id);
      if (current?.activeOperationId !== op.id) return again(0, 'superseded while dispatching');
      kit.checkFence();
      try {
        cluster = await kit.cs.createCluster({
          id: chosenId,
          name: arm.clusterName.toLowerCase(),
          region: { id: resource.properties.region },
          version: { id: resource.properties.version },
          azure: azureFields(identity),
          ...createExtras(resource.properties),
        });
      } catch (err) {
        if (isOutcomeUnknown(err) || isConflict(err)) {
          logger.warn('cluster create outcome unknown or a duplicate; searching again before any new attempt', {
            error: (err as Error).message,
          });
          return again(looks.follower.shortestDelayMs, 'create outcome unknown');
        }
        const settled = await failOnPermanentRefusal(kit, op, err);
        if (settled) return settled;
        throw err;
      }
    }
    const href = clusterHref(cluster.id);
    const onResource = await recordInternalId(kit, op, claimed.resource, href, 'Provisioning');
    if (onResource.outcome !== 'recorded') return again(0, `CS id not recorded: ${onResource.outcome}`);
    kit.checkFence();
    await kit.recordDispatched(op, href, 'Provisioning');
    return again(looks.follower.firstCheckAfterDispatch(work, kit, clusterTarget(href, op.request)), `dispatched as ${cluster.id}`);
  },
});
