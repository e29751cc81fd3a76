import { NODE_POOL_RESOURCE_TYPE } from '../../src/domain/resource-types';
import type { OperationRequest } from '../../src/domain/types';
import type { OperationProcessor } from '../../src/pipeline/reconcile/processor';
import type { Follower } from '../../src/pipeline/reconcile/follow/follower';

/**
 * Follows a dispatched node pool Create or Update: `installing` → Provisioning, `updating` →
 * Updating, `ready` → Succeeded, `error`/`recoverable_error` → Failed with CS's message.
 */
export function nodePoolStatusFollow(request: Extract<OperationRequest, 'Create' | 'Update'>, follower: Follower): OperationProcessor {
  return {
    name: `node-pool-${request.toLowerCase()}-follow`,
    resourceType: NODE_POOL_RESOURCE_TYPE,
    request,
    phase: 'follow',
    reconcile: (work, kit) => follower.nodePool(work, kit, work.op.internalId || work.resource.internalId || ''),
  };
}
