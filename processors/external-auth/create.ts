import {
  EXTERNAL_AUTH_RESOURCE_TYPE,
  TerminalError,
  again,
  ended,
  externalAuthHref,
  isConflict,
  isExternalAuthResource,
  isNotFound,
  isOutcomeUnknown,
  parseCsHref,
  type OperationProcessor,
} from '../../src/kit';
import { failOnPermanentRefusal } from '../kit/clusters-service-failure';
import { recordInternalId } from '../kit/resource-ids';
import type { ExternalAuthLooks } from './looks';
import { desiredExternalAuth } from './properties';

/** Clusters Service's external auth ids (schemas/cs-external-auth.schema.json#/definitions/externalAuthId). */
const CS_ID = /^[a-z0-9][a-z0-9-]{0,62}$/;

/**
 * External auth create dispatch. Its CS id is the lower-cased ARM name, so a create whose answer was
 * lost is found again by name (409 → read it and adopt it): one external auth per resource whatever
 * crashes happen. Waits while the parent cluster has no CS id yet. The Resource gets the CS href
 * (under the subscription lock, only while it is still this operation's) before the Operation.
 */
export const externalAuthCreate = (looks: ExternalAuthLooks): OperationProcessor => ({
  name: 'external-auth-create',
  resourceType: EXTERNAL_AUTH_RESOURCE_TYPE,
  request: 'Create',
  phase: 'dispatch',
  async reconcile(work, kit) {
    const { op, resource, arm } = work;
    if (!isExternalAuthResource(resource)) throw new TerminalError(`resource ${resource.id} is not an external auth`);
    if (resource.internalId) {
      await kit.recordDispatched(op, resource.internalId, 'Provisioning');
      return again(0, 'recovered the CS id from the resource');
    }
    const externalAuthId = (arm.externalAuthName ?? '').toLowerCase();
    if (!CS_ID.test(externalAuthId)) {
      const message = `The external auth name "${arm.externalAuthName ?? ''}" must be 1-63 letters, digits or '-', starting with a letter or digit`;
      await kit.writeBack(op, { status: 'Failed', error: { code: 'InvalidRequestContent', message } }, resource);
      return ended('Failed');
    }
    const parent = await kit.resources.readByResourceId(arm.clusterResourceId);
    if (!parent?.internalId) return again(kit.settings.waitDelayMs, 'parent cluster has no Clusters Service id yet');
    const { clusterId } = parseCsHref(parent.internalId);
    // A Delete that took the Resource over since it was read must not race a create.
    const current = await kit.resources.read(op.partitionKey, resource.id);
    if (current?.activeOperationId !== op.id) return again(0, 'superseded while dispatching');
    kit.checkFence();
    try {
      await kit.cs.createExternalAuth(clusterId, { id: externalAuthId, ...desiredExternalAuth(resource.properties) });
    } catch (err) {
      if (isOutcomeUnknown(err)) return again(looks.follower.shortestDelayMs, 'create outcome unknown');
      if (isConflict(err)) {
        // Ours from an earlier attempt whose answer was lost, or the cluster is being deleted.
        const existing = await kit.cs
          .getExternalAuth(clusterId, externalAuthId)
          .catch((e: unknown) => (isNotFound(e) ? undefined : Promise.reject(e)));
        if (!existing) return again(kit.settings.waitDelayMs, 'Clusters Service refused the external auth for now');
      } else {
        const settled = await failOnPermanentRefusal(kit, op, err);
        if (settled) return settled;
        throw err;
      }
    }
    const href = externalAuthHref(clusterId, externalAuthId);
    const onResource = await recordInternalId(kit, op, current, href, 'Provisioning');
    if (onResource.outcome !== 'recorded') return again(0, `CS id not recorded: ${onResource.outcome}`);
    kit.checkFence();
    await kit.recordDispatched(op, href, 'Provisioning');
    return again(looks.follower.firstCheckAfterDispatch(work, kit, looks.target(href, op.request)), `dispatched as ${externalAuthId}`);
  },
});
