/** What every step of the polling baseline works with: opstream's repositories, locks and CS client. */
import type { ClustersServiceClient } from '../../src/clusters-service';
import type { OperationsRepository, ResourcesRepository, SubscriptionsRepository } from '../../src/cosmos';
import type { SubscriptionLocks } from '../../src/locks';
import type { Logger } from '../../src/logging/logger';
import type { Operation, Stored } from '../../src/domain/types';
import type { NotificationQueue } from './notifications';

export interface BaselineContext {
  readonly operations: OperationsRepository;
  readonly resources: ResourcesRepository;
  readonly subscriptions: SubscriptionsRepository;
  readonly locks: SubscriptionLocks;
  readonly cs: ClustersServiceClient;
  readonly notifications: NotificationQueue;
  readonly logger: Logger;
  /** Operations whose CS DELETE was sent by this process (DELETE is idempotent: a restart sends it again). */
  readonly deletesSent: Set<string>;
}

export type StoredOperation = Stored<Operation>;

/**
 * What one pass did with an operation: the document as it now is (kept for the next pass), or
 * `done` when it is terminal (dropped from the list until the next scan, which will not list it).
 */
export type StepResult = { readonly kind: 'keep'; readonly operation: StoredOperation } | { readonly kind: 'done' };

export const keep = (operation: StoredOperation): StepResult => ({ kind: 'keep', operation });
export const DONE: StepResult = Object.freeze({ kind: 'done' });
