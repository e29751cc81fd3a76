import { isInvalidDocumentError } from '../cosmos/errors';
import type { PipelineContext } from './context';

export type DeadLetterReason = 'validation' | 'processing';

/**
 * Sets a document aside in DeadLetters and says so (metric, `dead-letters` tap, one log line) —
 * only when this version was not set aside before: a relist that finds the same invalid document
 * again changes nothing. Never throws: a dead letter that cannot be written is logged and counted by
 * the repository, and the caller moves on (the range must not stall on it).
 */
export async function deadLetter(ctx: PipelineContext, document: unknown, reason: DeadLetterReason, error: unknown, leaseToken?: string): Promise<void> {
  const doc = isInvalidDocumentError(error) ? error.document : document;
  const result = await ctx.deadLetters.write({ container: 'Operations', document: doc, reason, error, leaseToken });
  const meta = (doc ?? {}) as { id?: unknown; partitionKey?: unknown; externalId?: unknown };
  const fields = { operationId: text(meta.id), subscriptionId: text(meta.partitionKey), resourceId: text(meta.externalId), leaseToken };
  if (result.outcome !== 'written') {
    ctx.logger.debug(`dead letter ${result.outcome === 'exists' ? 'already written' : 'given up'}`, { ...fields, deadLetterId: result.id });
    return;
  }
  const message = error instanceof Error ? error.message : String(error);
  ctx.metrics.deadLetters.inc({ reason });
  ctx.taps.publish('dead-letters', { ...fields, reason, error: message, ...(result.truncated ? { truncated: true } : {}) });
  ctx.logger.warn(`document dead-lettered (${reason})`, { ...fields, error: message, deadLetterId: result.id });
}

/** A field of an unvalidated document, fit for a log line or a tap: a string, cut short, or nothing. */
export function text(value: unknown, max = 512): string | undefined {
  if (typeof value !== 'string') return undefined;
  return value.length > max ? `${value.slice(0, max)}…` : value;
}
