import { CLUSTER_RESOURCE_TYPE, type OperationProcessor, type OperationRequest } from '../../src/kit';
import type { ClusterLooks } from './looks';

/**
 * Follows a dispatched cluster Create or Update in Clusters Service until it is final:
 * `installing` → Provisioning, `updating` → Updating, `ready` → Succeeded, `error` → Failed
 * (with the inflight-check errors for OCM4001); 404 or an unknown state writes nothing and looks
 * again later (the deadline fails it eventually).
 */
export function clusterStatusFollow(request: Extract<OperationRequest, 'Create' | 'Update'>, looks: ClusterLooks): OperationProcessor {
  return {
    name: `cluster-${request.toLowerCase()}-follow`,
    resourceType: CLUSTER_RESOURCE_TYPE,
    request,
    phase: 'follow',
    reconcile: (work, kit) => looks.statusLook(work, kit, work.op.internalId || work.resource.internalId || ''),
  };
}
