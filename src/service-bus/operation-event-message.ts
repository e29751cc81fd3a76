import { createHash } from 'node:crypto';
import type { ServiceBusMessage } from '@azure/service-bus';
import { boundedArmError } from '../domain/bounded-arm-error';
import { parseArmResourceId } from '../domain/ids';
import type { Operation, OperationEvent } from '../domain/types.generated';
import { validate } from '../schemas/validator';

/**
 * One Operation version → the Service Bus message that publishes its transition
 * (`schemas/operation-event.schema.json` states the contract).
 *
 * The message id names the transition, not the publication: `{id}:{status}:{lastTransitionTime}`
 * is the same for every version of the document that carries this status (a later rewrite that
 * only clears `notificationUri` keeps both fields), so a retry, a redelivered change-feed batch or
 * such a rewrite is dropped by the topic's duplicate detection.
 *
 * Bounded: every field copied is bounded by the Operation schema (ids, timestamps, correlation ids)
 * except the error's free text, which is cut here (`boundedArmError`), so an event stays far below
 * the 256 KB a Service Bus message may have on the standard tier.
 */

/** Service Bus caps `messageId` and `sessionId` at 128 characters. */
const SERVICE_BUS_ID_MAX = 128;

export function operationEventOf(op: Operation): OperationEvent {
  const { resourceType } = parseArmResourceId(op.externalId);
  const event: OperationEvent = {
    id: op.id,
    operationId: op.operationId,
    resourceId: op.externalId,
    resourceType,
    subscriptionId: op.partitionKey,
    request: op.request,
    status: op.status,
    startTime: op.startTime,
    lastTransitionTime: op.lastTransitionTime,
    ...(op.internalId ? { internalId: op.internalId } : {}),
    ...(op.error ? { error: boundedArmError(op.error) } : {}),
    ...(op.correlationRequestId ? { correlationRequestId: op.correlationRequestId } : {}),
    ...(op.clientRequestId ? { clientRequestId: op.clientRequestId } : {}),
  };
  // The contract is checked on the way out, as every message crossing a boundary.
  return validate('operationEvent', event);
}

export function transitionMessageId(op: Pick<Operation, 'id' | 'status' | 'lastTransitionTime'>): string {
  return boundedId(`${op.id}:${op.status}:${op.lastTransitionTime}`);
}

/**
 * Per-resource order: every transition of one resource goes to one session. ARM ids of node pools
 * easily pass the 128 characters Service Bus allows, so the session is always the hex SHA-256 of the
 * lower-cased ARM id: one rule a consumer can compute for any resource (to accept its session).
 */
export function resourceSessionId(externalId: string): string {
  return createHash('sha256').update(externalId.toLowerCase()).digest('hex');
}

function boundedId(value: string): string {
  return value.length <= SERVICE_BUS_ID_MAX ? value : `sha256:${createHash('sha256').update(value).digest('hex')}`;
}

export function operationEventMessage(op: Operation): ServiceBusMessage {
  return messageOfEvent(operationEventOf(op));
}

/**
 * The message of an event as `operationEventMessage` builds it: its id, status and
 * lastTransitionTime are the Operation's, its resourceId the Operation's externalId, so a
 * republished event (a replayed dead letter) carries the message id and session of the original.
 */
export function messageOfEvent(event: OperationEvent): ServiceBusMessage {
  return {
    body: event,
    contentType: 'application/json',
    messageId: transitionMessageId(event),
    sessionId: resourceSessionId(event.resourceId),
    subject: event.status,
    applicationProperties: {
      subscriptionId: event.subscriptionId,
      resourceType: event.resourceType,
      request: event.request,
      status: event.status,
    },
  };
}
