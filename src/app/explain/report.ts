import type { OperationState } from '../../pipeline/operation-state';

/**
 * Everything `opstream explain` found about one operation, as `--json` prints it: the documents in
 * Cosmos DB (as curated views: a notification URI shows its origin only), the lock, the dead
 * letters, the lease of the range, what the owning instance says, and what Clusters Service says.
 */
export interface ExplainReport {
  /** What was asked: an operation id or an ARM resource id. */
  query: string;
  at: string;
  /** The one-line answer (diagnosis.ts). */
  diagnosis: string;
  operation?: OperationView;
  /** The Operation document fails its schema (it is then dead-lettered): the failing field. */
  invalidOperation?: { id: string; partitionKey?: string; field: string; message: string };
  resource?: ResourceView;
  /** The operation the Resource names as active, when it is another one (what superseded this one). */
  activeOperation?: { id: string; request: string; status: string };
  lock?: LockView;
  deadLetters: DeadLetterView[];
  lease?: LeaseView;
  owner?: OwnerView;
  clustersService?: ClustersServiceView;
}

export interface OperationView {
  id: string;
  subscriptionId: string;
  request: string;
  status: string;
  resourceId: string;
  internalId?: string;
  startTime: string;
  lastTransitionTime: string;
  error?: { code: string; message: string; target?: string };
  notification: NotificationView;
}

export interface NotificationView {
  /** pending: terminal with notificationUri (ARM still to tell); given-up: cleared unsent (see givenUp); none: nothing to send (sent, or none was asked); later: sent once the operation ends. */
  state: 'pending' | 'given-up' | 'none' | 'later';
  /** Origin of notificationUri (never its path or query). */
  target?: string;
  claim?: { owner: string; until: string };
  givenUp?: { reason: string; detail: string; at: string };
}

export interface ResourceView {
  id: string;
  provisioningState: string;
  activeOperationId?: string;
  internalId?: string;
  pendingInternalId?: string;
}

export interface LockView {
  subscriptionId: string;
  held: boolean;
  owner?: string;
  acquiredAt?: string;
  /** When Cosmos DB's TTL removes the document unless its holder renews it. */
  expiresAt?: string;
}

export interface DeadLetterView {
  id: string;
  reason: string;
  at: string;
  error: { message: string; path?: string };
}

export interface LeaseView {
  leaseToken: string;
  range: { min: string; max: string };
  owner: string | null;
  lastWrite: string;
  expired: boolean;
  /** When the lease expires unless renewed. */
  expiresAt: string;
  opsUrl?: string;
}

export interface OwnerView {
  instance: string;
  url?: string;
  /** The owner's answer (schemas/operation-state.schema.json), when it gave one. */
  state?: OperationState;
  /** Why there is no answer. */
  error?: string;
}

export interface ClustersServiceView {
  href: string;
  kind: 'cluster' | 'nodePool';
  found?: boolean;
  state?: string;
  description?: string;
  error?: string;
}
