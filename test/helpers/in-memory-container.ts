import type { Container, SqlQuerySpec } from '@azure/cosmos';
import query from '@zeit/cosmosdb-query';
import type { Clock } from '../../src/util/clock';

/**
 * A Cosmos container in memory, for the real repositories to run on: point reads, creates,
 * upserts, replaces and deletes with `_etag`s (a replace or delete whose If-Match names another
 * etag fails with 412, as Cosmos answers), and queries through the same SQL engine as the local
 * emulator. Errors are thrown the way the SDK throws them: an object whose `code` is the HTTP status.
 *
 * Tests seed documents with `put`, play another writer with `change` (its write bumps the etag, so
 * a writer that read before gets a 412 and reads again), script a failing write with `failNext`,
 * and take `snapshot`s to run the same state twice.
 */
export type StoredDocument = Record<string, unknown> & { id: string; _etag: string; _ts: number };

export type WriteKind = 'create' | 'upsert' | 'replace' | 'delete';
export type FaultKind = WriteKind | 'read';

/** An error as `@azure/cosmos` throws it (`code` = HTTP status). */
export function cosmosError(code: number, message = `HTTP ${code}`): Error & { code: number } {
  return Object.assign(new Error(message), { code });
}

interface Snapshot {
  docs: Map<string, StoredDocument>;
  etagSeq: number;
}

interface ScriptedFailure {
  kind: FaultKind;
  id: string;
  error: unknown;
}

interface AfterWrite {
  matches: (kind: WriteKind, doc: StoredDocument) => boolean;
  run: () => void;
}

export class InMemoryContainer {
  private docs = new Map<string, StoredDocument>();
  private etagSeq = 0;
  private readonly failures: ScriptedFailure[] = [];
  private readonly afterWrites: AfterWrite[] = [];
  /** Every write that went through, in order (`kind id`). */
  readonly writes: string[] = [];

  constructor(
    readonly id: string,
    /** The partition key path: `/partitionKey` (Operations, Resources) or `/id` (Subscriptions). */
    private readonly partitionKeyField: 'partitionKey' | 'id',
    private readonly clock: Clock,
  ) {}

  /** The SDK's view of this container, for the real repositories. */
  asContainer(): Container {
    const item = (id: string, partitionKey: string): object => ({
      read: async () => {
        this.scriptedFailure('read', id);
        return { resource: this.copyOf(partitionKey, id), statusCode: this.docs.has(key(partitionKey, id)) ? 200 : 404 };
      },
      replace: async (body: Record<string, unknown>, options: { accessCondition?: { type: string; condition: string } } = {}) => {
        this.scriptedFailure('replace', id);
        const current = this.docs.get(key(partitionKey, id));
        if (!current) throw cosmosError(404, `Entity with the specified id does not exist in the system (${id})`);
        if (options.accessCondition?.type === 'IfMatch' && options.accessCondition.condition !== current._etag)
          throw cosmosError(412, 'precondition failed');
        const stored = this.store({ ...body, id }, 'replace');
        this.ranWrite('replace', stored);
        return { resource: structuredClone(stored), etag: stored._etag };
      },
      delete: async (options: { accessCondition?: { type: string; condition: string } } = {}) => {
        this.scriptedFailure('delete', id);
        const current = this.docs.get(key(partitionKey, id));
        if (!current) throw cosmosError(404, 'not found');
        if (options.accessCondition?.type === 'IfMatch' && options.accessCondition.condition !== current._etag)
          throw cosmosError(412, 'precondition failed');
        this.docs.delete(key(partitionKey, id));
        this.writes.push(`delete ${id}`);
        this.ranWrite('delete', current);
        return { statusCode: 204 };
      },
    });
    const items = {
      create: async (body: Record<string, unknown> & { id: string }) => {
        this.scriptedFailure('create', body.id);
        if (this.docs.has(key(this.partitionKeyOf(body), body.id))) throw cosmosError(409, 'conflict');
        const stored = this.store(body, 'create');
        this.ranWrite('create', stored);
        return { resource: structuredClone(stored), etag: stored._etag };
      },
      upsert: async (body: Record<string, unknown> & { id: string }) => {
        this.scriptedFailure('upsert', body.id);
        const stored = this.store(body, 'upsert');
        this.ranWrite('upsert', stored);
        return { resource: structuredClone(stored), etag: stored._etag };
      },
      query: (spec: SqlQuerySpec, options: { partitionKey?: string } = {}) => ({
        getAsyncIterator: () => this.pages(spec, options.partitionKey),
      }),
    };
    // The repositories use only `id`, `item()` and `items`: the rest of the SDK surface is not played.
    return { id: this.id, item, items } as unknown as Container;
  }

  /** Seeds (or overwrites) a document as the frontend would have written it. */
  put<T extends { id: string }>(doc: T): StoredDocument {
    return structuredClone(this.store(doc as unknown as Record<string, unknown> & { id: string }, 'seed'));
  }

  /** Another writer changes the document (a new etag: whoever read it before gets a 412). */
  change(partitionKey: string, id: string, mutate: (doc: Record<string, unknown>) => void): void {
    const current = this.copyOf(partitionKey, id);
    if (!current) throw new Error(`${this.id}: no document ${id} to change`);
    mutate(current);
    this.store(current, 'seed');
  }

  /** Another writer deletes the document. */
  remove(partitionKey: string, id: string): void {
    this.docs.delete(key(partitionKey, id));
  }

  /** The next `kind` (a write, or a point read) of document `id` fails with `error` (a 503, say) and does nothing. */
  failNext(kind: FaultKind, id: string, error: unknown): void {
    this.failures.push({ kind, id, error });
  }

  /**
   * Runs `fn` once, right after the first write that `matches` went through (the write stays):
   * e.g. the process dies (`fn` throws) or the lease moves at that instant.
   */
  afterWrite(matches: (kind: WriteKind, doc: StoredDocument) => boolean, fn: () => void): void {
    this.afterWrites.push({ matches, run: fn });
  }

  /** A copy of the stored document (system fields included), or undefined. */
  copyOf(partitionKey: string, id: string): StoredDocument | undefined {
    const doc = this.docs.get(key(partitionKey, id));
    return doc && structuredClone(doc);
  }

  all(): StoredDocument[] {
    return [...this.docs.values()].map((d) => structuredClone(d));
  }

  snapshot(): Snapshot {
    return { docs: structuredClone(this.docs), etagSeq: this.etagSeq };
  }

  restore(snapshot: Snapshot): void {
    this.docs = structuredClone(snapshot.docs);
    this.etagSeq = snapshot.etagSeq;
    this.failures.length = 0;
    this.afterWrites.length = 0;
    this.writes.length = 0;
  }

  private partitionKeyOf(doc: Record<string, unknown>): string {
    const pk = doc[this.partitionKeyField];
    if (typeof pk !== 'string') throw cosmosError(400, `${this.id}: document without ${this.partitionKeyField}`);
    return pk;
  }

  private store(body: Record<string, unknown> & { id: string }, kind: WriteKind | 'seed'): StoredDocument {
    const stored: StoredDocument = {
      ...structuredClone(body),
      id: body.id,
      _etag: `"${this.id}-${++this.etagSeq}"`,
      _ts: Math.floor(this.clock.now() / 1000),
    };
    this.docs.set(key(this.partitionKeyOf(stored), stored.id), stored);
    if (kind !== 'seed') this.writes.push(`${kind} ${stored.id}`);
    return stored;
  }

  private ranWrite(kind: WriteKind, doc: StoredDocument): void {
    const i = this.afterWrites.findIndex((a) => a.matches(kind, doc));
    if (i < 0) return;
    const [after] = this.afterWrites.splice(i, 1);
    after?.run();
  }

  private scriptedFailure(kind: FaultKind, id: string): void {
    const i = this.failures.findIndex((f) => f.kind === kind && f.id === id);
    if (i < 0) return;
    const [failure] = this.failures.splice(i, 1);
    throw failure?.error;
  }

  private async *pages(spec: SqlQuerySpec, partitionKey: string | undefined): AsyncGenerator<{ resources: unknown[] }> {
    const docs = [...this.docs.values()].filter((d) => partitionKey === undefined || this.partitionKeyOf(d) === partitionKey);
    const out = query(spec.query).exec(docs, { parameters: (spec.parameters ?? []).map((p) => ({ name: p.name, value: p.value })) }) as {
      result: unknown[];
    };
    yield { resources: structuredClone(out.result) };
  }
}

function key(partitionKey: string, id: string): string {
  return `${partitionKey}\u0000${id}`;
}
