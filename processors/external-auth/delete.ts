import {
  EXTERNAL_AUTH_RESOURCE_TYPE,
  TerminalError,
  again,
  createSettleRemainingMs,
  externalAuthHref,
  isExternalAuthResource,
  type OperationProcessor,
} from '../../src/kit';
import { parentClusterId } from '../kit/parent-cluster';
import { cancelSuperseded } from '../kit/supersede';
import { removeExternalAuthLeftovers } from './leftovers';
import type { ExternalAuthLooks } from './looks';

/**
 * External auth delete, decided afresh on every look: when a create may still be in flight (no CS id
 * recorded yet), wait until it can no longer land; then look at the external auth (under the
 * recorded href, or under the parent cluster's CS id and the lower-cased ARM name) and DELETE it
 * unless CS is already uninstalling it (ExternalAuthLooks.deleteLook); gone (404) → cancel what the
 * Delete supersedes, delete the Resource document, Succeeded: nothing is left behind. An external
 * auth whose cluster never had a CS id is removed without asking CS: nothing can exist there.
 */
export const externalAuthDelete = (looks: ExternalAuthLooks): OperationProcessor => ({
  name: 'external-auth-delete',
  resourceType: EXTERNAL_AUTH_RESOURCE_TYPE,
  request: 'Delete',
  phase: 'any',
  removeLeftovers: removeExternalAuthLeftovers,
  async reconcile(work, kit) {
    const { follower } = looks;
    const { op, resource, arm } = work;
    if (!isExternalAuthResource(resource)) throw new TerminalError(`resource ${resource.id} is not an external auth`);
    let href = resource.internalId || op.internalId;
    if (!href) {
      const clusterId = await parentClusterId(kit, arm);
      href = clusterId ? externalAuthHref(clusterId, (arm.externalAuthName ?? '').toLowerCase()) : '';
    }
    const settleMs = createSettleRemainingMs(kit, op, resource, Boolean(href));
    if (settleMs > 0) {
      await cancelSuperseded(kit, op);
      return again(settleMs, 'a create sent before the delete may still land in Clusters Service');
    }
    const gone = async (why: string) => {
      await cancelSuperseded(kit, op);
      return follower.apply(work, kit, { kind: 'deleted' }, 'gone', why);
    };
    if (!href) return gone('the parent cluster never reached Clusters Service');
    return looks.deleteLook(work, kit, href, { gone: () => gone('not found') });
  },
});
