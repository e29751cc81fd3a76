import { CLUSTER_RESOURCE_TYPE } from '../src/domain/resource-types';
import type { OperationRequest } from '../src/domain/types';
import { followCluster } from '../src/pipeline/follow-status';
import type { OperationProcessor } from '../src/pipeline/operation-processor';

/**
 * Follows a dispatched cluster Create or Update in Clusters Service until it is final:
 * `installing` → Provisioning, `updating` → Updating, `ready` → Succeeded, `error` → Failed
 * (with the inflight-check errors for OCM4001); 404 or an unknown state writes nothing and looks
 * again later (the deadline fails it eventually).
 */
export function clusterStatusFollow(request: Extract<OperationRequest, 'Create' | 'Update'>): OperationProcessor {
  return {
    name: `cluster-${request.toLowerCase()}-follow`,
    resourceType: CLUSTER_RESOURCE_TYPE,
    request,
    phase: 'follow',
    reconcile: (work, ctx) => followCluster(work, ctx, work.op.internalId || work.resource.internalId || ''),
  };
}
