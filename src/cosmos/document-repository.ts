/**
 * Typed, validated access to one container: point reads, creates, read-modify-write with If-Match
 * and bounded retries on 412, deletes and queries. Every document read is validated (a mismatch
 * is an InvalidDocumentError naming the document and field, never a crash) and every document
 * written is validated first, so opstream never writes what it could not read back.
 */
import type { Container, FeedResponse, SqlQuerySpec } from '@azure/cosmos';
import type { Stored } from '../domain/types';
import { check, type SchemaKind, type Validated } from '../schemas/validator';
import { ConcurrentUpdateError, cosmosStatus, CosmosRequestError, DocumentExistsError, InvalidDocumentError } from './errors';
import { sameContent, withoutSystemFields } from './document-content';
import { feedRangeHeaders, type FeedRangeScope } from './feed-range-scope';

export type UpdateResult<T> =
  /** The mutation changed the document and the write went through. */
  | { readonly outcome: 'updated'; readonly document: Stored<T> }
  /** The mutation left the content as it was (or returned undefined): nothing was written. */
  | { readonly outcome: 'unchanged'; readonly document: Stored<T> }
  | { readonly outcome: 'not-found' };

/**
 * Computes the next content from the current document. Return `undefined` (or equal content) to
 * write nothing. Called again with the fresh document after a 412, so it must be pure.
 */
export type Mutation<T> = (current: Stored<T>) => T | undefined;

export interface UpdateOptions {
  /** Attempts before giving up with ConcurrentUpdateError. @defaultValue 5 */
  maxAttempts?: number;
  /**
   * The document as the caller read it moments ago (with its `_etag`): the first attempt starts
   * from it instead of reading, which saves a read whenever nothing changed since (If-Match still
   * guards the write; a 412 reads afresh). Here, deciding to write nothing is only ever done on a
   * fresh read (a caller that knows its copies are current may skip the call: write-back's
   * `changesNothing`).
   */
  startFrom?: { readonly id: string; readonly _etag: string };
}

export interface ListResult<T> {
  readonly items: Stored<T>[];
  /** Documents that failed validation: skip them (dead-letter), the others are still good. */
  readonly invalid: InvalidDocumentError[];
}

const DEFAULT_UPDATE_ATTEMPTS = 5;

export interface QueryOptions {
  /** Only this logical partition. */
  partitionKey?: string;
  /** Only this physical partition, or the part of it a feed range holds (see `feed-range-scope.ts`). */
  scope?: FeedRangeScope;
  /** Documents per page. @defaultValue 100 */
  pageSize?: number;
  signal?: AbortSignal;
}

/** Schema kinds stored as Cosmos documents. */
export type DocumentKind = Extract<SchemaKind, 'operation' | 'resource' | 'subscription' | 'lock' | 'deadLetter'>;

export interface DocumentRepositoryOptions<K extends DocumentKind = DocumentKind> {
  /**
   * Told of every document this repository wrote, as stored (with its new `_etag`): the pipeline
   * recognises the echo of its own writes on the change feed by it.
   */
  onWrite?: (doc: { id: string; _etag: string }) => void;
  /**
   * Told of every version this repository saw of a document by its id: read, written, or found gone
   * (`undefined`). Query results are not told: a page may be older than a write that finished before it.
   */
  onVersion?: (id: string, doc: Stored<Validated<K>> | undefined) => void;
}

export class DocumentRepository<K extends DocumentKind> {
  constructor(
    readonly container: Container,
    readonly kind: K,
    private readonly options: DocumentRepositoryOptions<K> = {},
  ) {}

  /** The written document, parsed, and reported to `onWrite`. */
  private written(raw: unknown, partitionKey: string): Stored<Validated<K>> {
    const doc = this.parse(raw, partitionKey);
    this.options.onWrite?.(doc as { id: string; _etag: string });
    this.options.onVersion?.((doc as { id: string }).id, doc);
    return doc;
  }

  /** Validates a raw document read from this container. */
  parse(raw: unknown, partitionKey?: string): Stored<Validated<K>> {
    const result = check(this.kind, raw);
    if (!result.ok) throw new InvalidDocumentError(this.container.id, result.error, raw, partitionKey);
    return result.value as Stored<Validated<K>>;
  }

  private checkOutgoing(doc: Validated<K>, partitionKey: string): Validated<K> {
    const outgoing = withoutSystemFields(doc);
    const result = check(this.kind, outgoing);
    if (!result.ok) throw new InvalidDocumentError(this.container.id, result.error, outgoing, partitionKey);
    return result.value;
  }

  /** The document, or undefined when there is none. */
  async read(partitionKey: string, id: string): Promise<Stored<Validated<K>> | undefined> {
    let raw: unknown;
    try {
      ({ resource: raw } = await this.container.item(id, partitionKey).read());
    } catch (err) {
      if (cosmosStatus(err) === 404) {
        this.options.onVersion?.(id, undefined);
        return undefined;
      }
      throw new CosmosRequestError(`read ${this.container.id}/${id}`, err, { partitionKey, documentId: id });
    }
    const doc = raw === undefined ? undefined : this.parse(raw, partitionKey);
    this.options.onVersion?.(id, doc);
    return doc;
  }

  /** Creates the document; an existing id is a DocumentExistsError. */
  async create(doc: Validated<K>, partitionKey: string): Promise<Stored<Validated<K>>> {
    const body = this.checkOutgoing(doc, partitionKey);
    try {
      const { resource } = await this.container.items.create(body);
      return this.written(resource, partitionKey);
    } catch (err) {
      if (cosmosStatus(err) === 409) throw new DocumentExistsError(this.container.id, partitionKey, doc.id, err);
      throw this.wrap(err, 'create', partitionKey, doc.id);
    }
  }

  /** Creates or overwrites the document unconditionally (seeding, tests, dead letters). */
  async upsert(doc: Validated<K>, partitionKey: string): Promise<Stored<Validated<K>>> {
    const body = this.checkOutgoing(doc, partitionKey);
    try {
      const { resource } = await this.container.items.upsert(body);
      return this.written(resource, partitionKey);
    } catch (err) {
      throw this.wrap(err, 'upsert', partitionKey, doc.id);
    }
  }

  /**
   * Read-modify-write: applies `mutate` to the current document and replaces it with If-Match on
   * the etag read; on 412 reads again and re-applies, up to `maxAttempts`.
   */
  async update(
    partitionKey: string,
    id: string,
    mutate: Mutation<Validated<K>>,
    options: UpdateOptions = {},
  ): Promise<UpdateResult<Validated<K>>> {
    let known = options.startFrom?.id === id ? (options.startFrom as Stored<Validated<K>>) : undefined;
    const maxAttempts = options.maxAttempts ?? DEFAULT_UPDATE_ATTEMPTS;
    // Starting from a stale copy is not a lost race: it gets an attempt of its own.
    const attempts = maxAttempts + (known ? 1 : 0);
    for (let attempt = 1; attempt <= attempts; attempt++) {
      const current = known ?? (await this.read(partitionKey, id));
      if (!current) return { outcome: 'not-found' };
      const next = mutate(structuredClone(current));
      if (next === undefined || sameContent(next, current)) {
        if (!known) return { outcome: 'unchanged', document: current };
        known = undefined;
        continue;
      }
      const body = this.checkOutgoing(next, partitionKey);
      try {
        const { resource } = await this.container
          .item(id, partitionKey)
          .replace(body, { accessCondition: { type: 'IfMatch', condition: current._etag } });
        return { outcome: 'updated', document: this.written(resource, partitionKey) };
      } catch (err) {
        const status = cosmosStatus(err);
        if (status === 412) {
          known = undefined;
          continue;
        }
        if (status === 404) {
          this.options.onVersion?.(id, undefined);
          return { outcome: 'not-found' };
        }
        throw this.wrap(err, 'replace', partitionKey, id);
      }
    }
    throw new ConcurrentUpdateError(this.container.id, partitionKey, id, maxAttempts);
  }

  /**
   * Deletes the document (with If-Match when `etag` is given). Returns false when it was already
   * gone; a changed etag returns false too and leaves the document alone.
   */
  async delete(partitionKey: string, id: string, etag?: string): Promise<boolean> {
    try {
      await this.container
        .item(id, partitionKey)
        .delete(etag === undefined ? {} : { accessCondition: { type: 'IfMatch', condition: etag } });
      this.options.onVersion?.(id, undefined);
      return true;
    } catch (err) {
      const status = cosmosStatus(err);
      if (status === 404) this.options.onVersion?.(id, undefined);
      if (status === 404 || status === 412) return false;
      throw this.wrap(err, 'delete', partitionKey, id);
    }
  }

  /**
   * Runs a query (scoped to one partition when `partitionKey` is given), validating each result.
   * Invalid documents are returned apart; they never fail the listing. Collects every page: for a
   * listing whose size the caller bounds; otherwise use `queryPages`.
   */
  async query(spec: SqlQuerySpec, options: QueryOptions = {}): Promise<ListResult<Validated<K>>> {
    const items: Stored<Validated<K>>[] = [];
    const invalid: InvalidDocumentError[] = [];
    for await (const page of this.queryPages(spec, options)) {
      items.push(...page.items);
      invalid.push(...page.invalid);
    }
    return { items, invalid };
  }

  /**
   * The same, one page (`pageSize` documents at most) at a time: the next page is read only when
   * the caller asks for it, so what it holds is one page, however many documents match.
   */
  async *queryPages(spec: SqlQuerySpec, options: QueryOptions = {}): AsyncGenerator<ListResult<Validated<K>>> {
    let pages: AsyncIterator<FeedResponse<unknown>>;
    try {
      const iterable = this.container.items
        .query<unknown>(spec, {
          ...(options.partitionKey === undefined ? {} : { partitionKey: options.partitionKey }),
          ...(options.scope === undefined ? {} : { initialHeaders: feedRangeHeaders(options.scope) }),
          ...(options.signal === undefined ? {} : { abortSignal: options.signal }),
          maxItemCount: options.pageSize ?? 100,
        })
        .getAsyncIterator();
      pages = iterable[Symbol.asyncIterator]();
    } catch (err) {
      throw this.wrap(err, 'query', options.partitionKey, undefined);
    }
    for (;;) {
      let next: IteratorResult<FeedResponse<unknown>>;
      try {
        next = await pages.next();
      } catch (err) {
        throw this.wrap(err, 'query', options.partitionKey, undefined);
      }
      if (next.done) return;
      const items: Stored<Validated<K>>[] = [];
      const invalid: InvalidDocumentError[] = [];
      for (const raw of next.value.resources) {
        try {
          items.push(this.parse(raw));
        } catch (err) {
          if (err instanceof InvalidDocumentError) invalid.push(err);
          else throw err;
        }
      }
      yield { items, invalid };
    }
  }

  private wrap(err: unknown, operation: string, partitionKey: string | undefined, id: string | undefined): unknown {
    if (err instanceof InvalidDocumentError) return err;
    return new CosmosRequestError(`${operation} ${this.container.id}${id === undefined ? '' : `/${id}`}`, err, {
      partitionKey,
      documentId: id,
    });
  }
}
