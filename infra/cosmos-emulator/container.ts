import { CosmosError, badRequest, rangeGone } from './errors';
import { MAX_EPK, epkInRange, initialBounds, rangesOverlap, splitPoint } from './partitioning';
import { PartitionRange, RangeStatus } from './partition-range';
import { documentRid } from './rid';
import { StoredDoc, docKey } from './stored-doc';
import { isExpired } from './ttl';
import { JsonObject } from './types';
import { VersionHistory, retentionMinutes } from './version-history';

export interface PartitionKeyDefinition {
  /** One path (Hash) or up to three (MultiHash, hierarchical). */
  paths: string[];
  kind: 'Hash' | 'MultiHash';
  /** 1: MurmurHash3 32-bit (hash-v1.ts), Hash kind only; 2: MurmurHash3 128-bit (hash.ts). */
  version: 1 | 2;
  /**
   * The create request named no version: hashed as version 1 (as the service does), and, as the
   * service answers for such legacy containers, reads leave `version` out.
   */
  versionOmitted?: true;
}

/** Everything needed to rebuild a container's metadata (journal and snapshot records carry this). */
export interface ContainerMeta {
  id: string;
  rid: string;
  ts: number;
  etag: string;
  partitionKey: PartitionKeyDefinition;
  defaultTtl?: number;
  indexingPolicy: JsonObject;
  /** Other properties of the definition, echoed back (uniqueKeyPolicy, changeFeedPolicy, …). */
  extra: JsonObject;
  ranges: { id: string; min: string; max: string; parents: string[]; status: RangeStatus }[];
  nextRangeId: number;
  lsn: number;
  docSeq: number;
}

/** A write's effect: every document it stores or deletes, all under one LSN. */
export interface Mutation {
  lsn: number;
  docSeq: number;
  puts: StoredDoc[];
  deletes: { key: string; epk: string }[];
}

/** Which documents a feed or query request covers. */
export interface FeedScope {
  /** A physical partition named by `x-ms-documentdb-partitionkeyrangeid`. */
  range?: PartitionRange;
  /** One logical partition named by the partition key header. */
  pkText?: string;
  epk?: string;
  /** The header named a prefix of a hierarchical key: every document whose EPK starts with `epk`. */
  epkPrefix?: boolean;
  /** Sub-range from `x-ms-start-epk` / `x-ms-end-epk`. */
  epkMin?: string;
  epkMax?: string;
}

export const DEFAULT_INDEXING_POLICY: JsonObject = {
  indexingMode: 'consistent',
  automatic: true,
  includedPaths: [{ path: '/*' }],
  excludedPaths: [{ path: '/"_etag"/?' }],
};

/**
 * A container: metadata, physical partitions (live and split-away), the LSN counter and the document
 * sequence behind `_rid`s. LSNs are one counter per container, so a split child simply continues
 * from its parent's LSNs and an SDK continuation (the parent's etag) stays valid on both children.
 */
export class ContainerState {
  meta: Omit<ContainerMeta, 'ranges' | 'nextRangeId' | 'lsn' | 'docSeq'>;
  lsn: number;
  /** Highest LSN whose write is durable (journal) or applied (memory only); the change feed stops here. */
  committedLsn: number;
  docSeq: number;
  /** Every version within the change feed retention window; undefined without a retention policy. */
  history: VersionHistory | undefined;
  private nextRangeId: number;
  private readonly ranges = new Map<string, PartitionRange>();
  private live: PartitionRange[] = [];

  constructor(
    meta: ContainerMeta,
    readonly databaseId: string,
    readonly databaseRid: string,
  ) {
    const { ranges, nextRangeId, lsn, docSeq, ...rest } = meta;
    this.meta = rest;
    this.lsn = lsn;
    this.committedLsn = lsn;
    this.docSeq = docSeq;
    this.nextRangeId = nextRangeId;
    for (const r of ranges) {
      const range = new PartitionRange(r.id, r.min, r.max, r.parents);
      range.status = r.status;
      this.ranges.set(r.id, range);
    }
    this.refreshLive();
  }

  static initialRanges(partitions: number, version: 1 | 2 = 2): Pick<ContainerMeta, 'ranges' | 'nextRangeId'> {
    const ranges = initialBounds(partitions, version).map((b, i) => ({
      id: String(i),
      min: b.min,
      max: b.max,
      parents: [],
      status: 'online' as const,
    }));
    return { ranges, nextRangeId: partitions };
  }

  get id(): string {
    return this.meta.id;
  }

  get rid(): string {
    return this.meta.rid;
  }

  get defaultTtl(): number | undefined {
    return this.meta.defaultTtl;
  }

  /** The container's link, `dbs/<db>/colls/<id>`. */
  get link(): string {
    return `dbs/${this.databaseId}/colls/${this.meta.id}`;
  }

  snapshotMeta(): ContainerMeta {
    return {
      ...this.meta,
      ranges: [...this.ranges.values()].map((r) => ({ id: r.id, min: r.min, max: r.max, parents: [...r.parents], status: r.status })),
      nextRangeId: this.nextRangeId,
      lsn: this.lsn,
      docSeq: this.docSeq,
    };
  }

  liveRanges(): readonly PartitionRange[] {
    return this.live;
  }

  /** The live range holding `epk` (the live ranges always tile "" … "FF"). */
  rangeForEpk(epk: string): PartitionRange {
    let lo = 0;
    let hi = this.live.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (this.live[mid].min <= epk) lo = mid;
      else hi = mid - 1;
    }
    return this.live[lo];
  }

  /** A range named by a request: 410/1002 once split away, 400 if it never existed. */
  liveRange(id: string): PartitionRange {
    const range = this.ranges.get(id);
    if (!range) throw badRequest(`The partition key range id ${id} does not exist in container ${this.link}.`);
    if (range.status === 'gone') throw rangeGone(id);
    return range;
  }

  find(pkText: string, epk: string, id: string, nowMs: number): StoredDoc | undefined {
    const doc = this.rangeForEpk(epk).docs.get(docKey(pkText, id));
    if (!doc || isExpired(doc, this.meta.defaultTtl, nowMs)) return undefined;
    return doc;
  }

  /** Applies a mutation in memory (live writes and journal replay). */
  apply(m: Mutation): void {
    this.recordVersions(m);
    for (const d of m.deletes) this.rangeForEpk(d.epk).remove(d.key);
    for (const doc of m.puts) this.rangeForEpk(doc.epk).put(doc);
    if (m.lsn > this.lsn) this.lsn = m.lsn;
    if (m.docSeq > this.docSeq) this.docSeq = m.docSeq;
  }

  /** Notes what a mutation creates, replaces and deletes, before it is applied (it reads the versions it replaces). */
  private recordVersions(m: Mutation): void {
    const minutes = retentionMinutes(this.meta.extra);
    if (minutes === 0) {
      this.history = undefined;
      return;
    }
    const history = (this.history ??= new VersionHistory());
    const atMs = m.puts[0]?.writeMs ?? Date.now();
    const live = (key: string, epk: string): StoredDoc | undefined => {
      const doc = this.rangeForEpk(epk).docs.get(key);
      return doc && !isExpired(doc, this.meta.defaultTtl, atMs) ? doc : undefined;
    };
    const deleted = new Set<string>();
    for (const d of m.deletes) {
      const previous = live(d.key, d.epk);
      deleted.add(d.key);
      if (previous)
        history.add({ kind: 'delete', lsn: m.lsn, atMs, id: previous.id, pkText: previous.pkText, epk: previous.epk, previous });
    }
    for (const current of m.puts) {
      const previous = deleted.has(current.key) ? undefined : live(current.key, current.epk);
      const kind = previous ? 'replace' : 'create';
      history.add({ kind, lsn: m.lsn, atMs, id: current.id, pkText: current.pkText, epk: current.epk, current, previous });
    }
    history.prune(atMs - minutes * 60_000);
  }

  nextDocRid(): { rid: string; seq: number } {
    const seq = this.docSeq + 1;
    return { rid: documentRid(this.meta.rid, seq), seq };
  }

  /** Documents a query or read feed sees, in no particular order, expired ones left out. */
  docsInScope(scope: FeedScope, nowMs: number): StoredDoc[] {
    const out: StoredDoc[] = [];
    for (const range of this.rangesInScope(scope)) {
      for (const doc of range.docs.values()) {
        if (this.inScope(doc, scope) && !isExpired(doc, this.meta.defaultTtl, nowMs)) out.push(doc);
      }
    }
    return out;
  }

  rangesInScope(scope: FeedScope): PartitionRange[] {
    if (scope.range) return [scope.range];
    if (scope.epk !== undefined && scope.epkPrefix) {
      const min = scope.epk;
      return this.live.filter((r) => rangesOverlap(r.min, r.max, min, `${min}FF`));
    }
    if (scope.epk !== undefined) return [this.rangeForEpk(scope.epk)];
    if (scope.epkMin !== undefined && scope.epkMax !== undefined) {
      const min = scope.epkMin;
      const max = scope.epkMax;
      return this.live.filter((r) => rangesOverlap(r.min, r.max, min, max));
    }
    return [...this.live];
  }

  inScope(doc: Pick<StoredDoc, 'epk' | 'pkText'>, scope: FeedScope): boolean {
    if (scope.epkPrefix) {
      if (scope.epk !== undefined && !doc.epk.startsWith(scope.epk)) return false;
    } else if (scope.pkText !== undefined && doc.pkText !== scope.pkText) return false;
    if (scope.epkMin !== undefined && scope.epkMax !== undefined && !epkInRange(doc.epk, scope.epkMin, scope.epkMax)) return false;
    return true;
  }

  /** Splits a live range in two at its midpoint; documents and their LSNs move to the children. */
  split(rangeId: string): { parent: PartitionRange; children: [PartitionRange, PartitionRange] } {
    const parent = this.ranges.get(rangeId);
    if (!parent) throw badRequest(`The partition key range id ${rangeId} does not exist in container ${this.link}.`);
    if (parent.status !== 'online') throw new CosmosError(409, 'Conflict', `The partition key range ${rangeId} was already split.`);
    const mid = splitPoint(parent, this.meta.partitionKey.version);
    if (mid === undefined) throw badRequest(`The partition key range ${rangeId} is too narrow to split.`);
    const lineage = [...parent.parents, parent.id];
    const left = new PartitionRange(String(this.nextRangeId), parent.min, mid, lineage);
    const right = new PartitionRange(String(this.nextRangeId + 1), mid, parent.max, lineage);
    this.nextRangeId += 2;
    for (const doc of parent.currentInLsnOrder()) (doc.epk < mid ? left : right).put(doc);
    parent.status = 'gone';
    parent.docs.clear();
    this.ranges.set(left.id, left);
    this.ranges.set(right.id, right);
    this.refreshLive();
    return { parent, children: [left, right] };
  }

  /** Removes expired documents; returns how many. */
  purgeExpired(nowMs: number): number {
    if (this.meta.defaultTtl === undefined) return 0;
    let purged = 0;
    for (const range of this.live) {
      for (const doc of range.docs.values()) {
        if (isExpired(doc, this.meta.defaultTtl, nowMs)) {
          range.remove(doc.key);
          purged++;
        }
      }
    }
    return purged;
  }

  private refreshLive(): void {
    this.live = [...this.ranges.values()].filter((r) => r.status === 'online').sort((a, b) => (a.min < b.min ? -1 : a.min > b.min ? 1 : 0));
    const complete =
      this.live.length > 0 &&
      this.live[0].min === '' &&
      this.live[this.live.length - 1].max === MAX_EPK &&
      this.live.every((r, i) => i === 0 || this.live[i - 1].max === r.min);
    if (!complete) throw new Error(`internal: partition key ranges of ${this.link} do not tile the key space`);
  }
}
