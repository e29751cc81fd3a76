import { randomBytes } from 'crypto';
import {
  CLUSTER_RESOURCE_TYPE,
  TerminalError,
  again,
  armIdEquals,
  breakGlassCredentialHref,
  isClusterResource,
  isConflict,
  isOutcomeUnknown,
  parseCsHref,
  type Operation,
  type OperationProcessor,
  type ProcessorKit,
  type Stored,
} from '../../src/kit';
import { failOnPermanentRefusal } from '../kit/clusters-service-failure';
import type { CredentialLooks } from './looks';

/**
 * A break-glass credential request (ARM `requestadmincredential`): one credential per operation in
 * Clusters Service whatever crashes happen, followed until issued, failed or expired.
 * 1. Waits while the cluster has no CS id, and while a revocation written before it still runs (it
 *    would revoke what this one gets: per-resource order).
 * 2. Chooses the credential's id and records its href on the Operation (`internalId`) before any
 *    POST, so every handler of this request asks for the same one.
 * 3. POSTs it with that id (a 409 is the same request from another handler, or one whose answer was
 *    lost); a handler that finds the id recorded but the request still Accepted reads first and POSTs
 *    only when CS does not have it. Then Provisioning, in the same write as the href when CS answered
 *    with another id than the one chosen.
 * 4. Follows the credential: issued → Succeeded, failed/expired/revoked → Failed.
 * The Operation records where the result is (the credential's href); the kubeconfig stays in CS,
 * which the frontend reads it from.
 */
export const credentialRequest = (looks: CredentialLooks): OperationProcessor => ({
  name: 'credential-request',
  resourceType: CLUSTER_RESOURCE_TYPE,
  request: 'RequestCredential',
  phase: 'any',
  async reconcile(work, kit) {
    const { resource, logger } = work;
    let op = work.op;
    if (!isClusterResource(resource)) throw new TerminalError(`resource ${resource.id} is not a cluster`);
    const recorded = op.internalId && parseCsHref(op.internalId).credentialId !== undefined ? op.internalId : '';
    if (recorded && op.status !== 'Accepted') return looks.requestLook(work, kit, recorded);
    // Nothing is sent to Clusters Service past the deadline: the reconciler fails the operation.
    if (work.late) return again(0, 'past its deadline before the credential was requested');
    if (!resource.internalId) return again(kit.settings.waitDelayMs, 'the cluster has no Clusters Service id yet');
    const revocation = await revocationBefore(kit, op);
    if (revocation) return again(kit.settings.waitDelayMs, `waiting for revocation ${revocation} to end`);

    let href = recorded;
    let chosenNow = false;
    if (!href) {
      href = breakGlassCredentialHref(parseCsHref(resource.internalId).clusterId, randomBytes(10).toString('hex'));
      op = (await kit.recordDispatched(op, href)) ?? op;
      chosenNow = true;
    }
    const { clusterId, credentialId = '' } = parseCsHref(href);
    // Recorded by an earlier handler: CS may hold it already (its answer lost, or a crash after it).
    const held = !chosenNow && (await kit.cs.observeBreakGlassCredential(clusterId, credentialId)).found;
    if (!held) {
      kit.checkFence();
      try {
        const made = await kit.cs.requestBreakGlassCredential(clusterId, { id: credentialId });
        if (made.href !== href) {
          logger.warn('Clusters Service gave the credential another id than the one chosen; recording its own', { credentialId: made.id });
          href = made.href;
        }
      } catch (err) {
        if (isOutcomeUnknown(err)) return again(looks.follower.shortestDelayMs, 'credential request outcome unknown');
        if (!isConflict(err)) {
          const settled = await failOnPermanentRefusal(kit, op, err);
          if (settled) return settled;
          throw err;
        }
        // 409: a credential with the chosen id exists: this request's.
      }
    }
    await kit.recordDispatched(op, href, 'Provisioning');
    return again(
      looks.follower.firstCheckAfterDispatch(work, kit, looks.target(href)),
      `credential ${parseCsHref(href).credentialId} requested`,
    );
  },
});

/** The id of a RevokeCredentials on the same cluster written before `op` and still running, if any. */
async function revocationBefore(kit: ProcessorKit, op: Stored<Operation>): Promise<string | undefined> {
  const { items } = await kit.operations.listNonTerminal({ partitionKeys: [op.partitionKey] });
  const before = (o: Operation): boolean => o.startTime < op.startTime || (o.startTime === op.startTime && o.id < op.id);
  return items.find((o) => o.request === 'RevokeCredentials' && armIdEquals(o.externalId, op.externalId) && before(o))?.id;
}
