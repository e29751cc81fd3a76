/**
 * The document and message types, generated from `schemas/` (see src/schemas/generate.ts).
 * Import them from here; `Stored<T>` marks a document read back from Cosmos (system fields set).
 */
import type { CosmosSystemFields, Operation as OperationDocument } from './types.generated';

export type {
  ArmError,
  ArmNotification,
  ClusterResource,
  DeadLetter,
  DeadLetterError,
  Lock,
  NodePoolResource,
  ExternalAuthResource,
  Operation,
  OperationRequest,
  OperationStatus,
  Resource,
  Subscription,
} from './types.generated';

/** Which instance is delivering an operation's ARM notification, until when. */
export type NotificationClaim = NonNullable<OperationDocument['notificationClaim']>;

/** What became of an operation's ARM notification attempts (delivered, failing, failed), by whom, when, with what answer. */
export type NotificationDeliveryRecord = NonNullable<OperationDocument['notificationDelivery']>;

/** A document as Cosmos returned it: `_etag` and `_ts` are always there. */
export type Stored<T> = T & Required<Pick<CosmosSystemFields, '_etag' | '_ts'>>;
