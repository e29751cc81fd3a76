import {
  CLUSTER_RESOURCE_TYPE,
  TerminalError,
  again,
  isClusterResource,
  isNotFound,
  parseCsHref,
  type OperationProcessor,
} from '../../src/kit';
import { failOnPermanentRefusal } from '../kit/clusters-service-failure';
import type { CredentialLooks } from './looks';

/**
 * Revokes every break-glass credential of a cluster (ARM `revokecredentials`): the DELETE of the
 * cluster's credentials (a second one while the first is pending is taken as done by the client),
 * then Deleting, then Succeeded once Clusters Service lists none still active (created, issued or
 * awaiting revocation); Failed when one failed. The look right after the DELETE lists them already:
 * a cluster with none active is done at once. A cluster CS does not know has nothing to revoke.
 * Decided on every look from the Operation's status and what CS lists, never from memory.
 */
export const credentialsRevoke = (looks: CredentialLooks): OperationProcessor => ({
  name: 'credentials-revoke',
  resourceType: CLUSTER_RESOURCE_TYPE,
  request: 'RevokeCredentials',
  phase: 'any',
  async reconcile(work, kit) {
    const { op, resource } = work;
    const { follower } = looks;
    if (!isClusterResource(resource)) throw new TerminalError(`resource ${resource.id} is not a cluster`);
    const href = op.internalId || resource.internalId;
    const nothing = (why: string) => follower.apply(work, kit, { kind: 'set', status: 'Succeeded' }, 'revoked', why);
    if (!href) return nothing('the cluster never reached Clusters Service: no credential to revoke');
    const { clusterId } = parseCsHref(href);
    if (op.status === 'Accepted') {
      if (work.late) return again(0, 'past its deadline before the revocation was requested');
      kit.checkFence();
      try {
        await kit.cs.revokeBreakGlassCredentials(clusterId);
      } catch (err) {
        if (isNotFound(err)) return nothing('Clusters Service does not know the cluster: no credential to revoke');
        const settled = await failOnPermanentRefusal(kit, op, err);
        if (settled) return settled;
        throw err;
      }
      const written = await kit.writeBack(op, { status: 'Deleting', error: null, skipResource: true });
      if (written.operation) work.op = written.operation;
      // One list now: nothing to revoke ends it at once, and otherwise it names a credential whose
      // revocation event can bring the next look forward (a first check would wait for the follow's pace).
    }
    try {
      return await looks.revokeLook(work, kit, clusterId);
    } catch (err) {
      if (isNotFound(err)) return nothing('Clusters Service no longer knows the cluster: no credential left');
      throw err;
    }
  },
});
