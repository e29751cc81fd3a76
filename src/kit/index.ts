/**
 * The contract between the engine and the resource kinds (`processors/<kind>/`): everything a
 * processor may use, and nothing else — the processor interface and its per-handling kit, outcomes,
 * the shared status follow and its facilities, the documents and ids, the Clusters Service calls and
 * their errors. Processors import `src/` through this module only (dependency-cruiser:
 * processors-through-the-kit); the engine (`src/pipeline`) names no resource kind.
 */

// The processor contract and what a handling gets.
export {
  ended,
  type OperationProcessor,
  type OperationWork,
  type ProcessorFactory,
  type ProcessorKit,
  type ProcessorTools,
} from '../pipeline/reconcile/processor';
export { checkRegistry } from '../pipeline/reconcile/router';
export { again, type Outcome } from '../pipeline/queue/outcome';
export { SUPERSEDED } from '../pipeline/reconcile/superseded';
export { createSettleRemainingMs } from '../pipeline/reconcile/create-settle';
export { endOperation } from '../pipeline/reconcile/end-operation';

// The shared status follow: pacing, write-back of a decision, Delete looks, wake-up states.
export { DELETE_ACCEPTED, DELETE_BUSY, Follower, isFinal, sendDelete, type FollowTarget } from '../pipeline/reconcile/follow/follower';
export { wakeStates } from '../pipeline/reconcile/follow/wake-states';

// Documents, ids and the Clusters Service state mapping.
export { TerminalError } from '../domain/errors';
export {
  armIdEquals,
  breakGlassCredentialHref,
  clusterHref,
  externalAuthHref,
  nodePoolHref,
  parseCsHref,
  type ArmResourceId,
} from '../domain/ids';
export {
  CLUSTER_RESOURCE_TYPE,
  EXTERNAL_AUTH_RESOURCE_TYPE,
  NODE_POOL_RESOURCE_TYPE,
  isClusterResource,
  isExternalAuthResource,
  isNodePoolResource,
} from '../domain/resource-types';
export type { Operation, OperationRequest, OperationStatus, Resource, Stored } from '../domain/types';
export type { NonTerminalStatus } from '../domain/statuses';
export type {
  ClusterProperties,
  CsCluster,
  CsClusterStatus,
  CsClusterUpdateRequest,
  CsExternalAuth,
  CsExternalAuthCreateRequest,
  CsExternalAuthUpdateRequest,
  CsNodePool,
  CsNodePoolStatus,
  CsNodePoolUpdateRequest,
  ExternalAuthProperties,
  NodePoolProperties,
} from '../domain/types.generated';
export { pastTime } from '../domain/document-time';
export { mapClusterStatus, mapNodePoolStatus, type CsObservation, type StatusDecision } from '../domain/cs-mapping';
export { MissingTenantError } from '../cosmos/errors';

// Clusters Service: calls, searches and errors.
export {
  armNameSearch,
  azureFields,
  isClustersServiceError,
  isConflict,
  isCredentialRefused,
  isNotFound,
  isOutcomeUnknown,
  matchesArmName,
  quoteSearchValue,
  type ArmResourceName,
  type AzureIdentity,
  type CallOptions,
  type KitBreakGlassCredential,
  type KitClustersService,
} from '../clusters-service';

// Tracing of shared reads (a batched read is a span of its own, linked to the handlings it serves).
export { failSpan, inSpan, ROOT_CONTEXT, tracer, type Span } from '../tracing';
