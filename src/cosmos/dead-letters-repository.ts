/**
 * The DeadLetters container: documents that could not be processed, with the reason.
 *
 * One dead letter per source document version: its id is a hash of the source container, id,
 * partition key and `_etag` (of the whole document when it has no id or etag), and it is written
 * with a create, so the same version found again (a replayed batch, a relist) finds it there (409)
 * and leaves it as first written.
 *
 * A dead letter always fits: the copy of the document is cut to ~1 MiB of JSON and 64 levels
 * (see `dead-letter-copy.ts`), and if Cosmos still refuses it (400/413) only the identifying
 * fields are kept. Writing it never throws and never takes long (`write` resolves with the
 * outcome): retriable failures are retried until a deadline; then, or on a refusal, the attempt is
 * given up with an error log line (operation id, lease token, reason) and a count in
 * `failures` (`opstream_dead_letter_write_failures_total`), so the change feed moves on. A write
 * given up because Cosmos was unavailable (deadline passed, circuit open) is not dropped: it is
 * tried again in the background until it lands (`late-writes.ts`; `onLateWrite` hears of it), so a
 * Cosmos outage costs no dead letter unless the instance stops before Cosmos is back.
 */
import type { Container } from '@azure/cosmos';
import { createHash } from 'node:crypto';
import type { DeadLetter, DeadLetterError, Stored } from '../domain/types';
import { silentLogger, type Logger } from '../logging/logger';
import { isValidationError } from '../schemas/errors';
import { check } from '../schemas/validator';
import { stringifyJson } from '../util/json-walk';
import { BoundedRetry, type BoundedRetryOptions, type GiveUpCause } from './bounded-retry';
import { COPY_LIMITS, copyWithinLimits, identifiersOnly, type CopyLimits } from './dead-letter-copy';
import { withoutSystemFields } from './document-content';
import { LateWrites, type LateWritesOptions } from './late-writes';
import { DocumentRepository, type ListResult } from './document-repository';
import { cosmosStatus, InvalidDocumentError, isRetriableCosmosFailure } from './errors';

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
  /**
   * The source document's version when `document` is not that document (an Operation event derived
   * from it): names the dead letter and its `source` instead of the fields of `document`.
   */
  readonly sourceVersion?: { readonly id: string; readonly partitionKey: string; readonly etag?: string; readonly lsn?: number };
}

export type DeadLetterWriteResult =
  /** Written now; `truncated` when the document copy was cut. */
  | { readonly outcome: 'written'; readonly id: string; readonly partitionKey: string; readonly truncated: boolean }
  /** This version of the document was dead-lettered before (HTTP 409): nothing to do. */
  | { readonly outcome: 'exists'; readonly id: string; readonly partitionKey: string; readonly truncated: boolean }
  /** Given up for now (logged and counted; retried in the background unless `rejected`); the caller moves on. */
  | {
      readonly outcome: 'failed';
      readonly id: string;
      readonly partitionKey: string;
      readonly cause: GiveUpCause;
      readonly error: unknown;
    };

type FailedWrite = DeadLetterWriteResult & { readonly outcome: 'failed'; readonly attempts: number; readonly elapsedMs: number };

export interface DeadLettersOptions {
  /** @defaultValue 30 days */
  ttlSeconds?: number;
  /** Where a given-up write is reported. @defaultValue silent */
  logger?: Logger;
  /** Counts given-up writes (`opstream_dead_letter_write_failures_total`). */
  failures?: { inc(labels: { reason: string; cause: GiveUpCause }): void };
  /** Deadline, backoff and cool-down of a write (see BoundedRetry). */
  retry?: BoundedRetryOptions;
  /** Size and depth of the document copy. @defaultValue 1 MiB, 64 levels */
  copyLimits?: CopyLimits;
  /** Pacing and bound of the background retries of writes given up while Cosmos was unavailable. */
  lateWrites?: LateWritesOptions;
  /** Told when a dead letter given up for now was written in the background. */
  onLateWrite?: (input: DeadLetterInput, result: DeadLetterWriteResult & { outcome: 'written' }) => void;
}

const DEAD_LETTER_DEFAULTS = Object.freeze({
  /** Dead letters expire after this. @defaultValue 30 days */
  ttlSeconds: 30 * 24 * 3600,
});

const UNKNOWN_PARTITION = 'unknown';
/** Longest error message kept (the document is what may be large, not the reason). */
const MAX_MESSAGE_CHARS = 4096;
/** Cosmos allows ids up to 1,023 bytes and partition key values up to 2 KB. */
const MAX_SOURCE_ID_CHARS = 1023;
const MAX_PARTITION_KEY_CHARS = 1024;

function cap(text: string, max: number = MAX_MESSAGE_CHARS): string {
  return text.length <= max ? text : `${text.slice(0, max)}…[truncated: ${text.length} characters]`;
}

function describe(error: unknown): DeadLetterError {
  if (error instanceof InvalidDocumentError)
    return { name: error.name, message: cap(error.message), path: cap(error.validation.pointer, 1024) };
  if (isValidationError(error)) return { name: error.name, message: cap(error.message), path: cap(error.pointer, 1024) };
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return {
      name: cap(String(error.name), 256),
      message: cap(String(error.message)),
      ...(typeof code === 'string' ? { code: cap(code, 256) } : {}),
    };
  }
  return { name: 'Error', message: cap(safeString(error)) };
}

function safeString(value: unknown): string {
  try {
    return String(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}

function field(doc: unknown, name: string): unknown {
  return doc !== null && typeof doc === 'object' && !Array.isArray(doc) ? (doc as Record<string, unknown>)[name] : undefined;
}

function shortString(value: unknown, max: number): string | undefined {
  return typeof value === 'string' && value.length <= max ? value : undefined;
}

/** The id of the dead letter of `document`: one per source document version. */
export function deadLetterId(container: string, document: unknown): string {
  const hash = createHash('sha256').update(container).update('\0');
  const id = shortString(field(document, 'id'), MAX_SOURCE_ID_CHARS);
  const etag = shortString(field(document, '_etag'), 1024);
  const pk = shortString(field(document, 'partitionKey'), MAX_PARTITION_KEY_CHARS);
  if (id !== undefined && etag !== undefined)
    hash
      .update('version\0')
      .update(id)
      .update('\0')
      .update(pk ?? '')
      .update('\0')
      .update(etag);
  else hash.update('content\0').update(stringifyJson(document) ?? 'undefined');
  return hash.digest('hex').slice(0, 40);
}

/** What names the dead letter: the source version when given, else the document itself. */
function sourceDocument(input: DeadLetterInput): unknown {
  const v = input.sourceVersion;
  return v === undefined ? input.document : { id: v.id, partitionKey: v.partitionKey, _etag: v.etag, _lsn: v.lsn };
}

/** The dead-letter document for `input` (pure; `now` in ms; never throws, never recurses). */
export function deadLetterFor(
  input: DeadLetterInput,
  now: number,
  ttlSeconds: number = DEAD_LETTER_DEFAULTS.ttlSeconds,
  limits: CopyLimits = COPY_LIMITS,
): DeadLetter {
  const doc = input.document;
  const named = sourceDocument(input);
  const sourceId = shortString(field(named, 'id'), MAX_SOURCE_ID_CHARS);
  const sourcePk = shortString(field(named, 'partitionKey'), MAX_PARTITION_KEY_CHARS);
  const etag = shortString(field(named, '_etag'), 1024);
  const lsn = field(named, '_lsn');
  const asObject = doc !== null && typeof doc === 'object' && !Array.isArray(doc) ? (doc as Record<string, unknown>) : { value: doc };
  const copy = copyWithinLimits(asObject, limits);
  return {
    id: deadLetterId(input.container, named),
    partitionKey: sourcePk !== undefined && sourcePk !== '' ? sourcePk : UNKNOWN_PARTITION,
    source: {
      container: input.container,
      ...(sourceId === undefined ? {} : { id: sourceId }),
      ...(sourcePk === undefined ? {} : { partitionKey: sourcePk }),
      ...(input.leaseToken === undefined ? {} : { leaseToken: input.leaseToken }),
      ...(typeof lsn === 'number' && Number.isInteger(lsn) ? { lsn } : {}),
      ...(etag === undefined ? {} : { etag }),
      sizeBytes: copy.originalBytes,
    },
    reason: input.reason,
    error: describe(input.error),
    ...(input.attempts === undefined ? {} : { attempts: input.attempts }),
    deadLetteredAt: new Date(now).toISOString(),
    document: copy.document,
    ...(copy.cut.length === 0 ? {} : { truncated: { originalBytes: copy.originalBytes, keptBytes: copy.keptBytes, cut: copy.cut } }),
    ttl: ttlSeconds,
  };
}

/** The same dead letter with only the identifying fields of the document (after Cosmos refused the fuller one). */
function identifiersOnlyDeadLetter(full: DeadLetter, status: number | undefined): DeadLetter {
  const why = `[truncated: Cosmos refused the dead letter with the document copy${status === undefined ? '' : ` (HTTP ${status})`}; only identifying fields kept]`;
  const document = identifiersOnly(full.document, why);
  const originalBytes = full.source.sizeBytes ?? full.truncated?.originalBytes ?? 0;
  const keptBytes = Buffer.byteLength(stringifyJson(document) ?? '{}', 'utf8');
  return {
    ...full,
    error: { ...full.error, message: cap(full.error.message, 1024) },
    document,
    truncated: { originalBytes, keptBytes, cut: ['rejected'] },
  };
}

/** Cosmos answers that no retry of the same body can change. */
function isRefusal(err: unknown): boolean {
  const status = cosmosStatus(err);
  return status === 400 || status === 413 || err instanceof InvalidDocumentError;
}

function isRetriable(err: unknown): boolean {
  if (err instanceof TypeError || err instanceof RangeError || err instanceof SyntaxError) return false;
  return isRetriableCosmosFailure(err);
}

export class DeadLettersRepository {
  readonly documents: DocumentRepository<'deadLetter'>;
  private readonly ttlSeconds: number;
  private readonly logger: Logger;
  private readonly failures?: DeadLettersOptions['failures'];
  private readonly retry: BoundedRetry;
  private readonly copyLimits: CopyLimits;
  private readonly late: LateWrites;
  private readonly onLateWrite?: DeadLettersOptions['onLateWrite'];

  constructor(container: Container, options: DeadLettersOptions = {}) {
    this.documents = new DocumentRepository(container, 'deadLetter');
    this.ttlSeconds = options.ttlSeconds ?? DEAD_LETTER_DEFAULTS.ttlSeconds;
    this.logger = options.logger ?? silentLogger();
    this.failures = options.failures;
    this.retry = new BoundedRetry(options.retry);
    this.copyLimits = options.copyLimits ?? COPY_LIMITS;
    this.late = new LateWrites(options.lateWrites);
    this.onLateWrite = options.onLateWrite;
  }

  /** Dead letters given up while Cosmos was unavailable and still being retried in the background. */
  get pendingLateWrites(): number {
    return this.late.size;
  }

  /** Stops the background retries (at shutdown); what is pending is forgotten. */
  stopLateWrites(): void {
    this.late.clear();
  }

  /**
   * Writes the dead letter of `input` unless this version of the document has one already.
   * Never throws: a write that cannot succeed is logged, counted and reported as `failed`.
   */
  async write(input: DeadLetterInput, now: number = Date.now()): Promise<DeadLetterWriteResult> {
    const result = await this.attempt(input, now);
    if (result.outcome !== 'failed') return result;
    const late = result.cause !== 'rejected' && this.retryLater(input, now, result.id);
    this.report(input, result, late);
    return result;
  }

  /** Keeps trying a write given up while Cosmos was unavailable; true when it was taken on. */
  private retryLater(input: DeadLetterInput, now: number, id: string): boolean {
    return this.late.add(id, async () => {
      const result = await this.attempt(input, now);
      if (result.outcome === 'failed' && result.cause !== 'rejected') return 'again';
      if (result.outcome === 'written') {
        this.logger.info('dead letter written after Cosmos was back', {
          deadLetterId: result.id,
          leaseToken: input.leaseToken,
          reason: input.reason,
        });
        this.onLateWrite?.(input, result);
      } else if (result.outcome === 'failed') {
        this.report(input, result, false);
      }
      return 'done';
    });
  }

  private async attempt(input: DeadLetterInput, now: number): Promise<DeadLetterWriteResult> {
    let doc: DeadLetter;
    try {
      doc = deadLetterFor(input, now, this.ttlSeconds, this.copyLimits);
    } catch (err) {
      const id = deadLetterId(input.container, undefined);
      return this.failed({ id, partitionKey: UNKNOWN_PARTITION }, 'rejected', err, 0, 0);
    }
    let body = doc;
    const outcome = await this.retry.run(async (signal) => {
      try {
        return await this.createOnce(body, signal);
      } catch (err) {
        if (!isRefusal(err) || body.truncated?.cut.includes('rejected')) throw err;
        body = identifiersOnlyDeadLetter(doc, cosmosStatus(err));
        return this.createOnce(body, signal);
      }
    }, isRetriable);
    if (outcome.ok)
      return { outcome: outcome.value, id: body.id, partitionKey: body.partitionKey, truncated: body.truncated !== undefined };
    return this.failed(body, outcome.cause, outcome.error, outcome.attempts, outcome.elapsedMs);
  }

  private async createOnce(doc: DeadLetter, signal: AbortSignal): Promise<'written' | 'exists'> {
    const outgoing = withoutSystemFields(doc);
    const checked = check('deadLetter', outgoing);
    if (!checked.ok) throw new InvalidDocumentError(this.documents.container.id, checked.error, undefined, doc.partitionKey);
    try {
      await this.documents.container.items.create(outgoing, { abortSignal: signal });
      return 'written';
    } catch (err) {
      if (cosmosStatus(err) === 409) return 'exists';
      throw err;
    }
  }

  private failed(
    doc: Pick<DeadLetter, 'id' | 'partitionKey'>,
    cause: GiveUpCause,
    error: unknown,
    attempts: number,
    elapsedMs: number,
  ): FailedWrite {
    return { outcome: 'failed', id: doc.id, partitionKey: doc.partitionKey, cause, error, attempts, elapsedMs };
  }

  /** One error line and one count per given-up write (not per background retry). */
  private report(input: DeadLetterInput, result: DeadLetterWriteResult, retryingLater: boolean): void {
    if (result.outcome !== 'failed') return;
    const { cause, error, id } = result;
    const { attempts, elapsedMs } = result as Partial<FailedWrite>;
    const status = cosmosStatus(error);
    try {
      this.failures?.inc({ reason: input.reason, cause });
      const next = retryingLater ? 'retried in the background until Cosmos takes it; the feed moves on' : 'the document is skipped';
      this.logger.error(`dead letter not written (${cause}); ${next}`, {
        operationId: shortString(field(sourceDocument(input), 'id'), MAX_SOURCE_ID_CHARS),
        subscriptionId: shortString(field(sourceDocument(input), 'partitionKey'), MAX_PARTITION_KEY_CHARS),
        leaseToken: input.leaseToken,
        container: input.container,
        reason: input.reason,
        documentError: describe(input.error).message,
        deadLetterId: id,
        cause,
        ...(status === undefined ? {} : { status }),
        error: cap(error instanceof Error ? error.message : safeString(error), 1024),
        attempts,
        elapsedMs,
      });
    } catch {
      // Reporting must not turn a given-up write into a throw.
    }
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
