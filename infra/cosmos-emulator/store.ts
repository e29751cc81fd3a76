import { ContainerMeta, ContainerState, Mutation } from './container';
import { conflict, notFound } from './errors';
import { Journal } from './journal';
import { JournalDoc, JournalRecord } from './journal-records';
import { OfferState } from './offers';
import { UserState } from './users';
import { newDatabaseRid, newEtag } from './rid';
import { StoredDoc, docKey } from './stored-doc';
import { Purgeable, isExpired } from './ttl';
import { JsonObject } from './types';

export interface DatabaseState {
  id: string;
  rid: string;
  ts: number;
  etag: string;
  containers: Map<string, ContainerState>;
  /** Users (and their permissions) by id. */
  users: Map<string, UserState>;
}

export const nowSeconds = (ms: number = Date.now()): number => Math.floor(ms / 1000);

/**
 * The emulator's state: databases, containers and their documents, and the durability glue. Every
 * change goes through `commit`, which applies it in memory, journals it when a data directory is
 * configured, and resolves when the change may be acknowledged.
 */
export class Store implements Purgeable {
  readonly databases = new Map<string, DatabaseState>();
  /** Provisioned throughput by offer id (offers.ts). */
  readonly offers = new Map<string, OfferState>();
  private journal: Journal | undefined;

  constructor(readonly partitions: number) {}

  /** Replays `dataDir` into this (empty) store, writes a fresh snapshot and journals from then on. */
  async attachJournal(dataDir: string): Promise<void> {
    const journal = await Journal.open(dataDir, (r) => this.applyRecord(r));
    for (const db of this.databases.values()) for (const c of db.containers.values()) c.committedLsn = c.lsn;
    await journal.compact(this.snapshotRecords());
    this.journal = journal;
  }

  async close(): Promise<void> {
    await this.journal?.close();
    this.journal = undefined;
  }

  database(id: string): DatabaseState {
    const db = this.databases.get(id);
    if (!db) throw notFound(`Database ${id} does not exist.`);
    return db;
  }

  container(databaseId: string, containerId: string): ContainerState {
    const c = this.database(databaseId).containers.get(containerId);
    if (!c) throw notFound(`Container dbs/${databaseId}/colls/${containerId} does not exist.`);
    return c;
  }

  async createDatabase(id: string): Promise<DatabaseState> {
    if (this.databases.has(id)) throw conflict(`Database ${id} already exists.`);
    const record: JournalRecord = { k: 'db+', id, rid: newDatabaseRid(), ts: nowSeconds(), etag: newEtag() };
    await this.commit(record);
    return this.database(id);
  }

  async deleteDatabase(id: string): Promise<void> {
    this.database(id);
    await this.commit({ k: 'db-', id });
  }

  async createContainer(databaseId: string, meta: ContainerMeta): Promise<ContainerState> {
    const db = this.database(databaseId);
    if (db.containers.has(meta.id)) throw conflict(`Container dbs/${databaseId}/colls/${meta.id} already exists.`);
    await this.commit({ k: 'coll+', db: databaseId, meta });
    return this.container(databaseId, meta.id);
  }

  async replaceContainer(
    databaseId: string,
    id: string,
    change: { defaultTtl?: number; indexingPolicy: JsonObject; extra: JsonObject },
  ): Promise<ContainerState> {
    this.container(databaseId, id);
    await this.commit({ k: 'coll~', db: databaseId, id, ts: nowSeconds(), etag: newEtag(), ...change });
    return this.container(databaseId, id);
  }

  async deleteContainer(databaseId: string, id: string): Promise<void> {
    this.container(databaseId, id);
    await this.commit({ k: 'coll-', db: databaseId, id });
  }

  /** Records an offer (new or replaced) as a whole. */
  async putOffer(offer: OfferState): Promise<OfferState> {
    await this.commit({ k: 'offer', offer });
    return offer;
  }

  /** Records a user with all its permissions (new, replaced or renamed: `previousId` is dropped). */
  async putUser(databaseId: string, user: UserState, previousId?: string): Promise<UserState> {
    this.database(databaseId);
    if (previousId !== undefined && previousId !== user.id) await this.commit({ k: 'user-', db: databaseId, id: previousId });
    await this.commit({ k: 'user', db: databaseId, user });
    return user;
  }

  async deleteUser(databaseId: string, id: string): Promise<void> {
    await this.commit({ k: 'user-', db: databaseId, id });
  }

  /** The offer of a database (`containerId` undefined: its shared throughput) or of a container. */
  offerFor(databaseId: string, containerId?: string): OfferState | undefined {
    for (const o of this.offers.values()) if (o.databaseId === databaseId && o.containerId === containerId) return o;
    return undefined;
  }

  /** Applies a document mutation and resolves when it is durable. */
  async commitWrite(container: ContainerState, m: Mutation): Promise<void> {
    const record: JournalRecord = {
      k: 'w',
      db: container.databaseId,
      c: container.id,
      lsn: m.lsn,
      seq: m.docSeq,
      puts: m.puts.map(toJournalDoc),
      dels: m.deletes.map((d) => ({ k: d.key, e: d.epk })),
    };
    container.apply(m);
    if (!this.journal) {
      container.committedLsn = Math.max(container.committedLsn, m.lsn);
      return;
    }
    await this.journal.append(record, () => {
      container.committedLsn = Math.max(container.committedLsn, m.lsn);
    });
  }

  async split(databaseId: string, containerId: string, rangeId: string): Promise<{ parent: string; children: string[] }> {
    const c = this.container(databaseId, containerId);
    const { parent, children } = c.split(rangeId);
    await this.journal?.append({ k: 'split', db: databaseId, c: containerId, range: rangeId });
    return { parent: parent.id, children: children.map((r) => r.id) };
  }

  purgeExpired(nowMs: number): number {
    let purged = 0;
    for (const db of this.databases.values()) for (const c of db.containers.values()) purged += c.purgeExpired(nowMs);
    return purged;
  }

  private async commit(record: JournalRecord): Promise<void> {
    this.applyRecord(record);
    await this.journal?.append(record);
  }

  /** Applies one record; idempotent, so snapshot and journal may overlap after a crash. */
  applyRecord(r: JournalRecord): void {
    switch (r.k) {
      case 'db+': {
        const existing = this.databases.get(r.id);
        if (existing?.rid === r.rid) return;
        this.databases.set(r.id, { id: r.id, rid: r.rid, ts: r.ts, etag: r.etag, containers: new Map(), users: new Map() });
        return;
      }
      case 'db-':
        this.databases.delete(r.id);
        for (const [id, o] of this.offers) if (o.databaseId === r.id) this.offers.delete(id);
        return;
      case 'coll+': {
        const db = this.databases.get(r.db);
        if (!db || db.containers.get(r.meta.id)?.rid === r.meta.rid) return;
        db.containers.set(r.meta.id, new ContainerState(r.meta, db.id, db.rid));
        return;
      }
      case 'coll~': {
        const c = this.databases.get(r.db)?.containers.get(r.id);
        if (!c) return;
        c.meta = { ...c.meta, ts: r.ts, etag: r.etag, defaultTtl: r.defaultTtl, indexingPolicy: r.indexingPolicy, extra: r.extra };
        return;
      }
      case 'coll-':
        this.databases.get(r.db)?.containers.delete(r.id);
        for (const [id, o] of this.offers) if (o.databaseId === r.db && o.containerId === r.id) this.offers.delete(id);
        return;
      case 'w': {
        const c = this.databases.get(r.db)?.containers.get(r.c);
        if (!c) return;
        c.apply({ lsn: r.lsn, docSeq: r.seq, puts: r.puts.map(fromJournalDoc), deletes: r.dels.map((d) => ({ key: d.k, epk: d.e })) });
        return;
      }
      case 'split': {
        const c = this.databases.get(r.db)?.containers.get(r.c);
        if (!c || !c.liveRanges().some((x) => x.id === r.range)) return;
        c.split(r.range);
        return;
      }
      case 'offer':
        this.offers.set(r.offer.id, r.offer);
        return;
      case 'user':
        this.databases.get(r.db)?.users.set(r.user.id, r.user);
        return;
      case 'user-':
        this.databases.get(r.db)?.users.delete(r.id);
        return;
    }
  }

  /** The current state as records: what a fresh snapshot holds. */
  *snapshotRecords(): Generator<JournalRecord> {
    const now = Date.now();
    for (const db of this.databases.values()) {
      yield { k: 'db+', id: db.id, rid: db.rid, ts: db.ts, etag: db.etag };
      for (const user of db.users.values()) yield { k: 'user', db: db.id, user };
      for (const c of db.containers.values()) {
        yield { k: 'coll+', db: db.id, meta: c.snapshotMeta() };
        let batch: JournalDoc[] = [];
        for (const range of c.liveRanges()) {
          for (const doc of range.currentInLsnOrder()) {
            if (isExpired(doc, c.defaultTtl, now)) continue;
            batch.push(toJournalDoc(doc));
            if (batch.length >= 200) {
              yield { k: 'w', db: db.id, c: c.id, lsn: c.lsn, seq: c.docSeq, puts: batch, dels: [] };
              batch = [];
            }
          }
        }
        if (batch.length) yield { k: 'w', db: db.id, c: c.id, lsn: c.lsn, seq: c.docSeq, puts: batch, dels: [] };
      }
    }
    for (const offer of this.offers.values()) yield { k: 'offer', offer };
  }
}

function toJournalDoc(doc: StoredDoc): JournalDoc {
  return { b: doc.body, p: doc.pkText, e: doc.epk, w: doc.writeMs, l: doc.lsn };
}

export function fromJournalDoc(j: JournalDoc): StoredDoc {
  const { _lsn: legacyLsn, ...body } = j.b;
  const id = String(body.id);
  const lsn = typeof j.l === 'number' ? j.l : typeof legacyLsn === 'number' ? legacyLsn : 0;
  const ttl = typeof body.ttl === 'number' ? body.ttl : undefined;
  return { key: docKey(j.p, id), id, pkText: j.p, epk: j.e, body, json: JSON.stringify(body), lsn, writeMs: j.w, ttl };
}
