import {
  EXTERNAL_AUTH_RESOURCE_TYPE,
  TerminalError,
  again,
  isConflict,
  isExternalAuthResource,
  pastTime,
  type CsExternalAuth,
  type CsObservation,
  type OperationProcessor,
} from '../../src/kit';
import { failOnPermanentRefusal } from '../kit/clusters-service-failure';
import { externalAuthIds, type ExternalAuthLooks } from './looks';
import { desiredExternalAuth, externalAuthPatch } from './properties';

/**
 * External auth update dispatch: reads what Clusters Service holds (a share of the next tick's shared
 * read of the cluster's external auths with batching on, one `GET` otherwise) and PATCHes the difference with
 * the Resource (issuer, clients, claim: each one that differs), then Updating and the follow. When
 * nothing differs no PATCH is sent: the read decides (ready → Succeeded). A dispatch repeated after
 * a crash between the PATCH and the write finds nothing left to send and CS `updating`: Updating.
 */
export const externalAuthUpdate = (looks: ExternalAuthLooks): OperationProcessor => ({
  name: 'external-auth-update',
  resourceType: EXTERNAL_AUTH_RESOURCE_TYPE,
  request: 'Update',
  phase: 'dispatch',
  async reconcile(work, kit) {
    const { op, resource } = work;
    if (!isExternalAuthResource(resource)) throw new TerminalError(`resource ${resource.id} is not an external auth`);
    const href = resource.internalId || op.internalId;
    if (!href) return again(kit.settings.waitDelayMs, 'external auth not created in Clusters Service yet');
    const { clusterId, externalAuthId } = externalAuthIds(href);
    let observation: CsObservation<CsExternalAuth>;
    if (looks.reads.batching) {
      if (work.follow.watch === undefined) {
        // First look: join the next tick's shared read of the cluster's external auths instead of a
        // call of its own (the external auth rides along from now on).
        looks.follower.watch(work, looks.target(href, op.request));
        looks.reads.watch(clusterId, externalAuthId);
        return looks.follower.onTick(again(1, 'reading the external auth with the next shared read'), kit);
      }
      // The read is a share of the unfenced shared call: a handling whose lease moved stops before it.
      kit.checkFence();
      // A shared read made since the Operation was written shows CS as of then or later: no call needed.
      const writtenAt = pastTime(op.startTime, kit.clock.now(), op);
      const read = looks.reads.latest(clusterId, externalAuthId, writtenAt) ?? (await looks.reads.read(clusterId, externalAuthId));
      observation = read.item ? { found: true, status: read.item } : { found: false };
    } else {
      observation = await kit.cs.observeExternalAuth(clusterId, externalAuthId);
    }
    if (!observation.found) return looks.decide(work, kit, observation);
    const patch = externalAuthPatch(desiredExternalAuth(resource.properties), observation.status);
    const fields = Object.keys(patch);
    if (fields.length === 0) return looks.decide(work, kit, observation);
    kit.checkFence();
    try {
      await kit.cs.updateExternalAuth(clusterId, externalAuthId, patch);
    } catch (err) {
      if (isConflict(err)) return again(kit.settings.waitDelayMs, 'external auth busy in Clusters Service');
      const settled = await failOnPermanentRefusal(kit, op, err);
      if (settled) return settled;
      throw err;
    }
    await kit.writeBack(op, { status: 'Updating', error: null }, resource);
    return again(looks.follower.firstCheckAfterDispatch(work, kit, looks.target(href, op.request)), `PATCH ${fields.join(', ')}`);
  },
});
