/** Errors of the validation layer. */
import { OpstreamError } from '../domain/errors';
import type { SchemaKind } from './catalog';

export interface ValidationIssue {
  /** JSON pointer of the failing value, e.g. `/properties/version` ("" = the document itself). */
  readonly pointer: string;
  /** The same as a dotted path for people, e.g. `properties.version` (`(document)` for the root). */
  readonly field: string;
  readonly message: string;
}

/**
 * A value that does not match its schema. Never retriable: the same document fails the same way,
 * so callers dead-letter it (or reject the response) instead of retrying. The message names the
 * kind, the document id when there is one, and the first failing field.
 */
export class ValidationError extends OpstreamError {
  readonly retriable = false;

  constructor(
    readonly schemaKind: SchemaKind,
    readonly documentId: string | undefined,
    /** Every problem found, most specific first; never empty. */
    readonly issues: readonly [ValidationIssue, ...ValidationIssue[]],
  ) {
    const first = issues[0];
    const doc = documentId === undefined ? `${schemaKind}` : `${schemaKind} "${documentId}"`;
    const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
    super(`invalid ${doc}: ${first.field} ${first.message}${more}`, {
      context: { schemaKind, documentId, field: first.field },
    });
  }

  /** The first failing field, dotted (`(document)` for the root). */
  get field(): string {
    return this.issues[0].field;
  }

  /** JSON pointer of the first failing field. */
  get pointer(): string {
    return this.issues[0].pointer;
  }
}

export function isValidationError(err: unknown): err is ValidationError {
  return err instanceof ValidationError;
}
