import type { Container, ItemDefinition, SqlQuerySpec } from '@azure/cosmos';
import type { BackoffPolicy } from '../util/backoff';
import { retry } from '../util/backoff';
import type { Clock } from '../util/clock';
import { LeaseLostError, engineError, isConflict, isNotFound, isPreconditionFailed, isTransient, retryAfterMsOf } from '../errors';
import type { LeaseDocument } from './lease-document';
import { HAND_OVER, releaseRequestedAt, resetRequested, withoutRequest } from './hand-over';
import { isLeaseDocument, toWritable } from './lease-document';
import { infoMarkerId, isLeaseIdOf, lockMarkerId } from './lease-ids';
import { asVersion0Lease, type Version0Lease } from './version0-document';
import { monitoredScopeMarker, otherProcessorsIn, type OtherProcessor } from './other-processors';

/**
 * How the lease container is partitioned; both are what the .NET processor accepts. With
 * `/partitionKey` every document carries `partitionKey`: the markers their id (as .NET writes them),
 * leases created here their id too (.NET picks a random GUID; readers take the value from the
 * document, so both work, and ours keeps a repeated create a 409 as with `/id`).
 */
export type LeaseKeyPath = '/id' | '/partitionKey';

/**
 * Persistence of leases in the lease container (partition key `/id` or `/partitionKey`). Every change is
 * read → modify → replace with `If-Match`; on 412 the current document is re-read and the change
 * re-applied only if this instance still owns the lease, otherwise `LeaseLostError`.
 * Transient failures (429, 5xx) are retried a bounded number of times; a replace whose answer was
 * lost but which did apply shows up as 412 with our own Owner and is simply re-applied.
 */
export class LeaseStore {
  /** Requests this store sent (for cost figures); SDK-internal retries are not counted. */
  requests = 0;
  private readonly retryPolicy: BackoffPolicy;

  constructor(
    private readonly container: Container,
    readonly prefix: string,
    private readonly clock: Clock,
    engineRetry: BackoffPolicy,
    private readonly signal?: AbortSignal,
    readonly keyPath: LeaseKeyPath = '/id',
  ) {
    this.retryPolicy = { ...engineRetry, retries: Math.min(engineRetry.retries, 5) };
  }

  /**
   * Other processors' live leases on the same monitored container, as the last wide listing found
   * them (see `watchOthers`); undefined before the first.
   */
  others?: { atMs: number; processors: OtherProcessor[] };
  /**
   * When set, one listing every `intervalMs` at most is widened to the leases of every processor on
   * the monitored container (`CONTAINS` on the id instead of `STARTSWITH`): still one query, which
   * also returns the other processors' lease documents (about 1 RU each) — a second fleet is seen at
   * no request of its own.
   */
  watchOthers?: { processorName: string; intervalMs: number; leaseExpirationMs: number };
  private lastWideMs = -Infinity;

  /** All leases of this processor, in one query. */
  async list(): Promise<LeaseDocument[]> {
    const watch = this.watchOthers;
    const now = this.clock.now();
    const wide = watch !== undefined && now - this.lastWideMs >= watch.intervalMs;
    const docs = await this.queryAll(
      'list leases',
      wide
        ? {
            query: 'SELECT * FROM c WHERE CONTAINS(c.id, @marker)',
            parameters: [{ name: '@marker', value: monitoredScopeMarker(this.prefix, watch.processorName) }],
          }
        : { query: 'SELECT * FROM c WHERE STARTSWITH(c.id, @prefix)', parameters: [{ name: '@prefix', value: `${this.prefix}..` }] },
    );
    if (wide) {
      this.lastWideMs = now;
      this.others = {
        atMs: now,
        processors: otherProcessorsIn(docs, { prefix: this.prefix, processorName: watch.processorName }, now, watch.leaseExpirationMs),
      };
    }
    return docs.filter((d) => isLeaseIdOf(this.prefix, d.id) && isLeaseDocument(d));
  }

  /**
   * The leases of this processor that `owner` holds, and those nobody holds, in one query: what an
   * instance watching another reads instead of every lease (its cost follows that owner's share, not
   * the whole container; unowned leases are few, and rare: an instance that stopped released them).
   */
  async listWatched(owner: string): Promise<LeaseDocument[]> {
    const docs = await this.queryAll('list leases of an owner', {
      query: 'SELECT * FROM c WHERE STARTSWITH(c.id, @prefix) AND (c.Owner = @owner OR IS_NULL(c.Owner) OR NOT IS_DEFINED(c.Owner))',
      parameters: [
        { name: '@prefix', value: `${this.prefix}..` },
        { name: '@owner', value: owner },
      ],
    });
    return docs.filter((d) => isLeaseIdOf(this.prefix, d.id) && isLeaseDocument(d));
  }

  /** Every page of a query, each page counted as a request. */
  private queryAll(what: string, query: SqlQuerySpec): Promise<LeaseDocument[]> {
    return this.call(what, async () => {
      const iterator = this.container.items.query<LeaseDocument>(query);
      const out: LeaseDocument[] = [];
      while (iterator.hasMoreResults()) {
        this.requests++;
        const page = await iterator.fetchNext();
        out.push(...(page.resources ?? []));
      }
      return out;
    });
  }

  /** The lease with this id; `partitionKey` is the document's (unknown for a lease another writer created: then a query finds it). */
  /** Version-0 (partition key range) leases of this prefix, see `version0.ts`. */
  async listVersion0(): Promise<Version0Lease[]> {
    const docs = await this.call('list version-0 leases', async () => {
      this.requests++;
      const { resources } = await this.container.items
        .query<unknown>({
          query: 'SELECT * FROM c WHERE STARTSWITH(c.id, @prefix) AND (NOT IS_DEFINED(c.version) OR c.version = 0)',
          parameters: [{ name: '@prefix', value: `${this.prefix}..` }],
        })
        .fetchAll();
      return resources;
    });
    return docs.map(asVersion0Lease).filter((l): l is Version0Lease => l !== undefined && isLeaseIdOf(this.prefix, l.id));
  }

  async deleteVersion0(lease: Version0Lease): Promise<void> {
    await this.call('delete version-0 lease', async () => {
      this.requests++;
      try {
        await this.container.item(lease.id, this.pkOf(lease)).delete();
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    });
  }

  async read(id: string, partitionKey?: string): Promise<LeaseDocument | undefined> {
    return this.call('read lease', async () => {
      this.requests++;
      try {
        if (this.keyPath === '/partitionKey' && partitionKey === undefined) {
          const { resources } = await this.container.items
            .query<LeaseDocument>({ query: 'SELECT * FROM c WHERE c.id = @id', parameters: [{ name: '@id', value: id }] })
            .fetchAll();
          return resources.find((d) => isLeaseDocument(d));
        }
        const { resource } = await this.container.item(id, partitionKey ?? id).read<LeaseDocument>();
        return resource && isLeaseDocument(resource) ? resource : undefined;
      } catch (err) {
        if (isNotFound(err)) return undefined;
        throw err;
      }
    });
  }

  /** Creates the lease unless a document with its (deterministic) id exists; returns what is stored. */
  async createIfNotExists(lease: LeaseDocument): Promise<{ created: boolean; lease: LeaseDocument }> {
    return this.call('create lease', async () => {
      this.requests++;
      try {
        const { resource } = await this.container.items.create<LeaseDocument>(this.keyed(toWritable(lease)));
        return { created: true, lease: resource as LeaseDocument };
      } catch (err) {
        if (!isConflict(err)) throw err;
        const existing = await this.read(lease.id, this.keyPath === '/partitionKey' ? lease.id : undefined);
        if (!existing) throw err;
        return { created: false, lease: existing };
      }
    });
  }

  /**
   * Takes a lease seen in the last listing. No retry on 412: someone else changed it since, and the
   * next balancing cycle decides again on fresh data. `properties` are merged into the lease's own.
   */
  async acquire(lease: LeaseDocument, owner: string, properties: Record<string, string> = {}): Promise<LeaseDocument> {
    return this.call('acquire lease', async () => {
      try {
        // A hand-over request is for the owner that was asked: a new owner starts without one. A
        // pending reset is applied in this very write, so the reader starts at the new position.
        const reset = resetRequested(lease);
        const merged =
          Object.keys(properties).length || releaseRequestedAt(lease) !== undefined || reset !== undefined
            ? { properties: { ...withoutRequest(lease.properties), ...properties } }
            : {};
        const position = reset ? { ContinuationToken: reset.continuation } : {};
        return await this.replace({ ...lease, ...merged, ...position, Owner: owner, timestamp: this.nowIso() });
      } catch (err) {
        if (isPreconditionFailed(err)) throw new LeaseLostError(lease.LeaseToken, { cause: err, instanceName: owner });
        if (isNotFound(err)) throw new LeaseLostError(lease.LeaseToken, { gone: true, cause: err, instanceName: owner });
        throw err;
      }
    });
  }

  renew(lease: LeaseDocument, owner: string): Promise<LeaseDocument> {
    return this.update(lease, owner, (server) => server);
  }

  checkpoint(lease: LeaseDocument, owner: string, continuationToken: string | null): Promise<LeaseDocument> {
    return this.update(lease, owner, (server) => ({ ...server, ContinuationToken: continuationToken }));
  }

  /**
   * Sets Owner to null so any instance takes the lease at once. Already lost or gone: nothing to do.
   * `handedOverAtMs`: released on request (see hand-over.ts), marked so this instance leaves it to
   * others; `continuation`: a requested reset, written with the release.
   */
  async release(lease: LeaseDocument, owner: string, how: { handedOverAtMs?: number; continuation?: string | null } = {}): Promise<void> {
    const mark: Record<string, string> =
      how.handedOverAtMs !== undefined ? { [HAND_OVER.by]: owner, [HAND_OVER.at]: new Date(how.handedOverAtMs).toISOString() } : {};
    const position = how.continuation !== undefined ? { ContinuationToken: how.continuation } : {};
    try {
      await this.update(lease, owner, (server) => ({
        ...server,
        ...position,
        Owner: null,
        properties: { ...withoutRequest(server.properties), ...mark },
      }));
    } catch (err) {
      if (err instanceof LeaseLostError) return;
      throw err;
    }
  }

  /** Deletes a lease and verifies it is gone (a failed delete would re-process the parent's range). */
  async delete(lease: LeaseDocument): Promise<void> {
    await this.call('delete lease', async () => {
      this.requests++;
      try {
        await this.container.item(lease.id, this.pkOf(lease)).delete();
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    });
    const still = await this.read(lease.id, this.pkOf(lease));
    if (still)
      throw engineError('delete lease', new Error(`lease ${lease.LeaseToken} still exists after delete`), { leaseToken: lease.LeaseToken });
  }

  // ---- bootstrap markers ----

  async isInitialized(): Promise<boolean> {
    const id = infoMarkerId(this.prefix);
    return this.call('read .info marker', async () => {
      this.requests++;
      try {
        const { resource } = await this.container.item(id, id).read();
        return resource !== undefined;
      } catch (err) {
        if (isNotFound(err)) return false;
        throw err;
      }
    });
  }

  async markInitialized(): Promise<void> {
    const id = infoMarkerId(this.prefix);
    await this.call('create .info marker', async () => {
      this.requests++;
      try {
        await this.container.items.create(this.keyed({ id }));
      } catch (err) {
        if (!isConflict(err)) throw err;
      }
    });
  }

  /** Creates the `.lock` document (`ttl` seconds, so a crashed bootstrapper does not block forever); its etag, or undefined if held. */
  async acquireInitLock(ttlSeconds: number): Promise<string | undefined> {
    const id = lockMarkerId(this.prefix);
    return this.call('create .lock marker', async () => {
      this.requests++;
      try {
        const response = await this.container.items.create(this.keyed({ id, ttl: ttlSeconds }));
        return response.etag ?? '*';
      } catch (err) {
        if (isConflict(err)) return undefined;
        throw err;
      }
    });
  }

  async releaseInitLock(etag: string): Promise<void> {
    const id = lockMarkerId(this.prefix);
    await this.call('delete .lock marker', async () => {
      this.requests++;
      try {
        await this.container.item(id, id).delete(etag === '*' ? {} : { accessCondition: { type: 'IfMatch', condition: etag } });
      } catch (err) {
        if (!isNotFound(err) && !isPreconditionFailed(err)) throw err;
      }
    });
  }

  // ---- internals ----

  /**
   * Read-modify-replace with If-Match. `mutate` receives the freshest document known; if another
   * instance owns it (or it is gone) the lease is lost.
   */
  private async update(lease: LeaseDocument, owner: string, mutate: (server: LeaseDocument) => LeaseDocument): Promise<LeaseDocument> {
    let current = lease;
    for (let conflicts = 0; conflicts <= 5; conflicts++) {
      if (current.Owner !== owner) {
        throw new LeaseLostError(lease.LeaseToken, { newOwner: current.Owner, instanceName: owner });
      }
      try {
        return await this.call('write lease', () => this.replace({ ...mutate(current), timestamp: this.nowIso() }), lease.LeaseToken);
      } catch (err) {
        const cause = err instanceof Error && err.cause !== undefined ? err.cause : err;
        if (isNotFound(cause)) throw new LeaseLostError(lease.LeaseToken, { gone: true, cause, instanceName: owner });
        if (!isPreconditionFailed(cause)) throw err;
        const server = await this.read(lease.id, this.pkOf(lease));
        if (!server) throw new LeaseLostError(lease.LeaseToken, { gone: true, cause, instanceName: owner });
        current = server;
      }
    }
    throw new LeaseLostError(lease.LeaseToken, { newOwner: current.Owner, instanceName: owner });
  }

  private async replace(lease: LeaseDocument): Promise<LeaseDocument> {
    this.requests++;
    const options = lease._etag ? { accessCondition: { type: 'IfMatch', condition: lease._etag } } : {};
    const { resource } = await this.container
      .item(lease.id, this.pkOf(lease))
      .replace<LeaseDocument>(toWritable(lease) as LeaseDocument & ItemDefinition, options);
    return resource as LeaseDocument;
  }

  /** The partition key value of a stored document (markers and our leases: the id). */
  private pkOf(doc: { id: string; partitionKey?: string }): string {
    return this.keyPath === '/partitionKey' ? (doc.partitionKey ?? doc.id) : doc.id;
  }

  /** A document to create, with `partitionKey` when the container is partitioned on it. */
  private keyed<D extends { id: string; partitionKey?: string }>(doc: D): D {
    return this.keyPath === '/partitionKey' ? { ...doc, partitionKey: doc.partitionKey ?? doc.id } : doc;
  }

  private nowIso(): string {
    return new Date(this.clock.now()).toISOString();
  }

  /** Retries transient failures; 404/409/412 and others go to the caller unchanged, wrapped with context. */
  private async call<T>(what: string, fn: () => Promise<T>, leaseToken?: string): Promise<T> {
    try {
      return await retry(
        fn,
        (err) => ({ retry: isTransient(err) && !(err instanceof LeaseLostError), retryAfterMs: retryAfterMsOf(err) }),
        this.retryPolicy,
        {
          signal: this.signal,
        },
      );
    } catch (err) {
      if (err instanceof LeaseLostError || isNotFound(err) || isConflict(err) || isPreconditionFailed(err)) throw err;
      throw engineError(what, err, { leaseToken });
    }
  }
}
