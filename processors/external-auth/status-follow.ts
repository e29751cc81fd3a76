import { EXTERNAL_AUTH_RESOURCE_TYPE, type OperationProcessor, type OperationRequest } from '../../src/kit';
import type { ExternalAuthLooks } from './looks';

/**
 * Follows a dispatched external auth Create or Update: installing → Provisioning, updating →
 * Updating, ready or awaiting_secret → Succeeded, error → Failed with CS's message (states.ts).
 */
export function externalAuthStatusFollow(
  request: Extract<OperationRequest, 'Create' | 'Update'>,
  looks: ExternalAuthLooks,
): OperationProcessor {
  return {
    name: `external-auth-${request.toLowerCase()}-follow`,
    resourceType: EXTERNAL_AUTH_RESOURCE_TYPE,
    request,
    phase: 'follow',
    reconcile: (work, kit) => looks.statusLook(work, kit, work.op.internalId || work.resource.internalId || ''),
  };
}
