/**
 * The DeadLetters container: documents that could not be processed, with the reason. Writing the
 * same source document again (a replayed change feed batch) overwrites the same dead letter: its
 * id is a hash of the source container and the document as read.
 */
import type { Container } from '@azure/cosmos';
import { createHash } from 'node:crypto';
import type { DeadLetter, DeadLetterError, Stored } from '../domain/types';
import { isValidationError } from '../schemas/errors';
import { DocumentRepository, type ListResult } from './document-repository';
import { InvalidDocumentError } from './errors';

export interface DeadLetterInput {
  /** Container the document came from, e.g. "Operations". */
  readonly container: string;
  /** The document as read (raw JSON). */
  readonly document: unknown;
  readonly reason: DeadLetter['reason'];
  /** Why: an InvalidDocumentError/ValidationError gives the failing field; any error its message. */
  readonly error: unknown;
  readonly leaseToken?: string;
  readonly attempts?: number;
}

export const DEAD_LETTER_DEFAULTS = Object.freeze({
  /** Dead letters expire after this. @defaultValue 30 days */
  ttlSeconds: 30 * 24 * 3600,
});

const UNKNOWN_PARTITION = 'unknown';

function describe(error: unknown): DeadLetterError {
  if (error instanceof InvalidDocumentError) return { name: error.name, message: error.message, path: error.validation.pointer };
  if (isValidationError(error)) return { name: error.name, message: error.message, path: error.pointer };
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return { name: error.name, message: error.message, ...(typeof code === 'string' ? { code } : {}) };
  }
  return { name: 'Error', message: String(error) };
}

function field(doc: unknown, name: string): unknown {
  return doc !== null && typeof doc === 'object' ? (doc as Record<string, unknown>)[name] : undefined;
}

/** The dead-letter document for `input` (pure; `now` in ms). */
export function deadLetterFor(input: DeadLetterInput, now: number, ttlSeconds: number = DEAD_LETTER_DEFAULTS.ttlSeconds): DeadLetter {
  const sourceId = field(input.document, 'id');
  const sourcePk = field(input.document, 'partitionKey');
  const lsn = field(input.document, '_lsn');
  const partitionKey = typeof sourcePk === 'string' && sourcePk !== '' ? sourcePk : UNKNOWN_PARTITION;
  const id = createHash('sha256').update(input.container).update('\0').update(JSON.stringify(input.document) ?? 'undefined').digest('hex').slice(0, 40);
  const document = input.document !== null && typeof input.document === 'object' && !Array.isArray(input.document) ? (input.document as Record<string, unknown>) : { value: input.document };
  return {
    id,
    partitionKey,
    source: {
      container: input.container,
      ...(typeof sourceId === 'string' ? { id: sourceId } : {}),
      ...(typeof sourcePk === 'string' ? { partitionKey: sourcePk } : {}),
      ...(input.leaseToken === undefined ? {} : { leaseToken: input.leaseToken }),
      ...(typeof lsn === 'number' && Number.isInteger(lsn) ? { lsn } : {}),
    },
    reason: input.reason,
    error: describe(input.error),
    ...(input.attempts === undefined ? {} : { attempts: input.attempts }),
    deadLetteredAt: new Date(now).toISOString(),
    document,
    ttl: ttlSeconds,
  };
}

export class DeadLettersRepository {
  readonly documents: DocumentRepository<'deadLetter'>;
  private readonly ttlSeconds: number;

  constructor(container: Container, options: { ttlSeconds?: number } = {}) {
    this.documents = new DocumentRepository(container, 'deadLetter');
    this.ttlSeconds = options.ttlSeconds ?? DEAD_LETTER_DEFAULTS.ttlSeconds;
  }

  /** Writes (or overwrites) the dead letter of `input`. */
  write(input: DeadLetterInput, now: number = Date.now()): Promise<Stored<DeadLetter>> {
    const doc = deadLetterFor(input, now, this.ttlSeconds);
    return this.documents.upsert(doc, doc.partitionKey);
  }

  read(partitionKey: string, id: string): Promise<Stored<DeadLetter> | undefined> {
    return this.documents.read(partitionKey, id);
  }

  /** Dead letters of one partition, or all of them. */
  list(options: { partitionKey?: string } = {}): Promise<ListResult<DeadLetter>> {
    return this.documents.query({ query: 'SELECT * FROM c' }, options);
  }

  delete(partitionKey: string, id: string): Promise<boolean> {
    return this.documents.delete(partitionKey, id);
  }
}
