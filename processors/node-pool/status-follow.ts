import { NODE_POOL_RESOURCE_TYPE, type OperationProcessor, type OperationRequest } from '../../src/kit';
import type { NodePoolLooks } from './looks';

/**
 * Follows a dispatched node pool Create or Update: `installing` → Provisioning, `updating` →
 * Updating, `ready` → Succeeded, `error`/`recoverable_error` → Failed with CS's message.
 */
export function nodePoolStatusFollow(request: Extract<OperationRequest, 'Create' | 'Update'>, looks: NodePoolLooks): OperationProcessor {
  return {
    name: `node-pool-${request.toLowerCase()}-follow`,
    resourceType: NODE_POOL_RESOURCE_TYPE,
    request,
    phase: 'follow',
    reconcile: (work, kit) => looks.statusLook(work, kit, work.op.internalId || work.resource.internalId || ''),
  };
}
