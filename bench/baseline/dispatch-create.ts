/**
 * Create dispatch, done by the baseline in its pass (the frontend of this project no longer calls
 * CS), with the reference's steps: skip unless the Resource's active operation is this one; repair
 * from the Resource's CS id; tenant from the Subscription; managed resource group required; choose
 * and persist the CS id before calling CS; search by Azure identity (adopt one match) or POST with
 * the chosen id; write the Resource's CS id, then the Operation's. Node pools: the CS id is the node
 * pool name, so a 409 means "already there" (adopt it); the parent cluster must have its CS id.
 */
import { randomBytes } from 'node:crypto';
import {
  azureFields,
  isConflict,
  isNotFound,
  isOutcomeUnknown,
  isClustersServiceError,
  type AzureIdentity,
} from '../../src/clusters-service';
import { MissingTenantError } from '../../src/cosmos/errors';
import { clusterHref, nodePoolHref, parseArmResourceId, parseCsHref, resourceDocumentId } from '../../src/domain/ids';
import { isClusterResource, isNodePoolResource } from '../../src/domain/resource-types';
import type { Resource, Stored } from '../../src/domain/types';
import { DONE, keep, type BaselineContext, type StepResult, type StoredOperation } from './context';
import { recordInternalId, recordPendingInternalId, writeBack } from './write-back';

async function fail(ctx: BaselineContext, op: StoredOperation, code: string, message: string): Promise<StepResult> {
  const written = await writeBack(ctx, op, { kind: 'set', status: 'Failed', error: { code, message } });
  return written ? keep(written) : DONE;
}

async function adopt(ctx: BaselineContext, op: StoredOperation, href: string): Promise<StepResult> {
  const written = await recordInternalId(ctx, op, href);
  return written ? keep(written) : DONE;
}

/** Reads the Resource; a missing one or another active operation means this create is not ours to run. */
async function ownResource(ctx: BaselineContext, op: StoredOperation): Promise<Stored<Resource> | StepResult> {
  const resource = await ctx.resources.read(op.partitionKey, resourceDocumentId(op.externalId));
  if (!resource || resource.activeOperationId !== op.id) {
    // Superseded (Canceled) when another operation took the resource over; a missing resource too.
    const written = await writeBack(ctx, op, { kind: 'keep' });
    return written ? keep(written) : DONE;
  }
  return resource;
}

export async function dispatchClusterCreate(ctx: BaselineContext, op: StoredOperation): Promise<StepResult> {
  const owned = await ownResource(ctx, op);
  if ('kind' in owned) return owned;
  const resource = owned;
  if (!isClusterResource(resource)) return fail(ctx, op, 'InternalServerError', `resource ${resource.id} is not a cluster`);
  if (resource.internalId) return adopt(ctx, op, resource.internalId);
  const arm = parseArmResourceId(op.externalId);
  let tenantId: string;
  try {
    tenantId = await ctx.subscriptions.tenantIdOf(arm.subscriptionId);
  } catch (err) {
    if (err instanceof MissingTenantError) return fail(ctx, op, 'InvalidSubscriptionState', err.message);
    throw err;
  }
  const managedResourceGroupName = resource.properties.managedResourceGroupName;
  if (!managedResourceGroupName) return fail(ctx, op, 'InvalidRequestContent', 'The cluster has no managed resource group name');

  let chosenId = resource.pendingInternalId ? parseCsHref(resource.pendingInternalId).clusterId : undefined;
  if (!chosenId) {
    chosenId = randomBytes(16).toString('hex');
    await recordPendingInternalId(ctx, op, clusterHref(chosenId));
  }
  const identity: AzureIdentity = {
    subscriptionId: arm.subscriptionId,
    resourceGroupName: arm.resourceGroupName,
    resourceName: arm.clusterName,
    tenantId,
    managedResourceGroupName,
  };
  const found = await ctx.cs.findClusterByAzureIdentity(identity);
  if (found) return adopt(ctx, op, clusterHref(found.id));
  try {
    const created = await ctx.cs.createCluster({
      id: chosenId,
      name: arm.clusterName.toLowerCase(),
      region: { id: resource.properties.region },
      version: { id: resource.properties.version },
      azure: azureFields(identity),
    });
    return adopt(ctx, op, clusterHref(created.id));
  } catch (err) {
    // Unknown outcome or a conflict: the next pass searches again before any new POST.
    if (isOutcomeUnknown(err) || isConflict(err)) return keep(op);
    if (isClustersServiceError(err) && !err.retriable) return fail(ctx, op, 'InvalidRequestContent', err.message);
    throw err;
  }
}

export async function dispatchNodePoolCreate(ctx: BaselineContext, op: StoredOperation): Promise<StepResult> {
  const owned = await ownResource(ctx, op);
  if ('kind' in owned) return owned;
  const resource = owned;
  if (!isNodePoolResource(resource)) return fail(ctx, op, 'InternalServerError', `resource ${resource.id} is not a node pool`);
  if (resource.internalId) return adopt(ctx, op, resource.internalId);
  const arm = parseArmResourceId(op.externalId);
  const parent = await ctx.resources.readByResourceId(arm.clusterResourceId);
  if (!parent?.internalId) return keep(op);
  const { clusterId } = parseCsHref(parent.internalId);
  const nodePoolId = (arm.nodePoolName ?? '').toLowerCase();
  const p = resource.properties;
  try {
    await ctx.cs.createNodePool(clusterId, {
      id: nodePoolId,
      replicas: p.replicas,
      version: { id: p.version },
      ...(p.vmSize ? { azure_node_pool: { vm_size: p.vmSize } } : {}),
    });
  } catch (err) {
    if (isOutcomeUnknown(err)) return keep(op);
    if (isConflict(err)) {
      const existing = await ctx.cs
        .getNodePool(clusterId, nodePoolId)
        .catch((e: unknown) => (isNotFound(e) ? undefined : Promise.reject(e)));
      if (!existing) return keep(op);
    } else if (isNotFound(err) || (isClustersServiceError(err) && !err.retriable)) {
      return fail(ctx, op, isNotFound(err) ? 'NotFound' : 'InvalidRequestContent', (err as Error).message);
    } else {
      throw err;
    }
  }
  return adopt(ctx, op, nodePoolHref(clusterId, nodePoolId));
}
