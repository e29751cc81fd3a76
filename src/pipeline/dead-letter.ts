import { isInvalidDocumentError } from '../cosmos/errors';
import type { PipelineServices } from './context';
import { PIPELINE_EVENTS, type OperationIds } from './events';
import { correlationOf } from '../tracing/correlation';

/**
 * `publication`: an Operation event Service Bus could not take (see `service-bus/operation-events-publisher.ts`);
 * `unsupported`: an Operation whose resource type and request no processor handles (left as it is in Cosmos DB).
 */
export const DEAD_LETTER_REASONS = ['validation', 'processing', 'publication', 'unsupported'] as const;
export type DeadLetterReason = (typeof DEAD_LETTER_REASONS)[number];

/**
 * Sets a document aside in DeadLetters and says so (`pipeline.dead-letter.written`) — only when
 * this version was not set aside before: a relist that finds the same invalid document again
 * changes nothing. Never throws: a dead letter that cannot be written is logged and counted by the
 * repository, and the caller moves on (the range must not stall on it). The one path every
 * dead letter takes (invalid documents, poison batches, operations that kept failing).
 */
export async function deadLetter(
  ctx: Pick<PipelineServices, 'deadLetters' | 'events' | 'logger'>,
  document: unknown,
  reason: DeadLetterReason,
  error: unknown,
  leaseToken?: string,
): Promise<void> {
  const doc = isInvalidDocumentError(error) ? error.document : document;
  const result = await ctx.deadLetters.write({ container: 'Operations', document: doc, reason, error, leaseToken });
  if (result.outcome !== 'written') {
    ctx.logger.debug(`dead letter ${result.outcome === 'exists' ? 'already written' : 'given up for now'}`, {
      ...idsOf(doc),
      leaseToken,
      deadLetterId: result.id,
    });
    return;
  }
  announceDeadLetter(ctx.events, { document: doc, reason, error, leaseToken }, result);
}

/** Says that a dead letter was written (`pipeline.dead-letter.written`), now or in the background later. */
export function announceDeadLetter(
  events: PipelineServices['events'],
  input: {
    document: unknown;
    reason: DeadLetterReason;
    error: unknown;
    leaseToken?: string;
    sourceVersion?: { id: string; partitionKey: string };
  },
  result: { id: string; truncated: boolean },
): void {
  const { reason, error, leaseToken, sourceVersion } = input;
  // An Operation event names its Operation by `sourceVersion` (its own fields are the event's).
  const ids = sourceVersion
    ? { ...idsOf(input.document), operationId: sourceVersion.id, subscriptionId: sourceVersion.partitionKey }
    : idsOf(input.document);
  events.emit({
    type: PIPELINE_EVENTS.deadLetterWritten,
    ids,
    leaseToken,
    reason,
    error: error instanceof Error ? error.message : String(error),
    deadLetterId: result.id,
    truncated: result.truncated,
  });
}

function idsOf(doc: unknown): OperationIds {
  const meta = (doc !== null && typeof doc === 'object' ? doc : {}) as {
    id?: unknown;
    partitionKey?: unknown;
    externalId?: unknown;
    correlationRequestId?: unknown;
    clientRequestId?: unknown;
  };
  return { operationId: text(meta.id), subscriptionId: text(meta.partitionKey), resourceId: text(meta.externalId), ...correlationOf(meta) };
}

/** A field of an unvalidated document, fit for a log line or an event: a string, cut short, or nothing. */
export function text(value: unknown, max = 512): string | undefined {
  if (typeof value !== 'string') return undefined;
  return value.length > max ? `${value.slice(0, max)}…` : value;
}
