import { CLUSTER_RESOURCE_TYPE } from '../../src/domain/resource-types';
import type { OperationRequest } from '../../src/domain/types';
import type { OperationProcessor } from '../../src/pipeline/reconcile/processor';
import type { Follower } from '../../src/pipeline/reconcile/follow/follower';

/**
 * Follows a dispatched cluster Create or Update in Clusters Service until it is final:
 * `installing` → Provisioning, `updating` → Updating, `ready` → Succeeded, `error` → Failed
 * (with the inflight-check errors for OCM4001); 404 or an unknown state writes nothing and looks
 * again later (the deadline fails it eventually).
 */
export function clusterStatusFollow(request: Extract<OperationRequest, 'Create' | 'Update'>, follower: Follower): OperationProcessor {
  return {
    name: `cluster-${request.toLowerCase()}-follow`,
    resourceType: CLUSTER_RESOURCE_TYPE,
    request,
    phase: 'follow',
    reconcile: (work, kit) => follower.cluster(work, kit, work.op.internalId || work.resource.internalId || ''),
  };
}
