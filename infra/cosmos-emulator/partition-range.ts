import { StoredDoc } from './stored-doc';

export type RangeStatus = 'online' | 'gone';

/**
 * One physical partition: its documents and its change log. The log holds document versions in LSN
 * order; a version is current while the documents map still points at that very object, so updates and
 * deletes need no log surgery (stale versions are skipped and compacted away from time to time).
 */
export class PartitionRange {
  readonly docs = new Map<string, StoredDoc>();
  private log: StoredDoc[] = [];
  status: RangeStatus = 'online';

  constructor(
    readonly id: string,
    readonly min: string,
    readonly max: string,
    readonly parents: readonly string[],
  ) {}

  put(doc: StoredDoc): void {
    this.docs.set(doc.key, doc);
    const last = this.log[this.log.length - 1];
    if (last && last.lsn > doc.lsn) {
      // Only journal replay of out-of-order records could get here; keep the log sorted.
      const at = this.firstIndexAfter(doc.lsn);
      this.log.splice(at, 0, doc);
    } else {
      this.log.push(doc);
    }
    if (this.log.length > 2 * this.docs.size + 256) this.compact();
  }

  remove(key: string): StoredDoc | undefined {
    const doc = this.docs.get(key);
    if (doc) this.docs.delete(key);
    return doc;
  }

  isCurrent(doc: StoredDoc): boolean {
    return this.docs.get(doc.key) === doc;
  }

  /** Current versions with an LSN greater than `lsn`, in LSN order. */
  *changesAfter(lsn: number): Generator<StoredDoc> {
    for (let i = this.firstIndexAfter(lsn); i < this.log.length; i++) {
      const doc = this.log[i];
      if (this.isCurrent(doc)) yield doc;
    }
  }

  /** Current documents in LSN order (used to hand documents to split children). */
  currentInLsnOrder(): StoredDoc[] {
    return this.log.filter((d) => this.isCurrent(d));
  }

  private firstIndexAfter(lsn: number): number {
    let lo = 0;
    let hi = this.log.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.log[mid].lsn <= lsn) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private compact(): void {
    this.log = this.currentInLsnOrder();
  }
}
