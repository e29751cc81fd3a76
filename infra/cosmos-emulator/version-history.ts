import { StoredDoc } from './stored-doc';
import { JsonObject, isJsonObject } from './types';

/**
 * What the all-versions-and-deletes change feed reads: every create, replace and delete of a container
 * whose `changeFeedPolicy.retentionDuration` (minutes) is set, in LSN order, kept for that long. The
 * latest-version feed cannot serve this: it keeps only each document's current version.
 */
export type VersionKind = 'create' | 'replace' | 'delete';

export interface VersionEvent {
  readonly kind: VersionKind;
  readonly lsn: number;
  readonly atMs: number;
  readonly id: string;
  readonly pkText: string;
  readonly epk: string;
  /** The version written (create, replace). */
  readonly current?: StoredDoc;
  /** The version replaced or deleted. */
  readonly previous?: StoredDoc;
}

/** The policy's retention in minutes; 0 when the container keeps no history. */
export function retentionMinutes(extra: JsonObject): number {
  const policy = extra.changeFeedPolicy;
  if (!isJsonObject(policy)) return 0;
  const minutes = policy.retentionDuration;
  return typeof minutes === 'number' && Number.isFinite(minutes) && minutes > 0 ? minutes : 0;
}

export class VersionHistory {
  private events: VersionEvent[] = [];

  add(event: VersionEvent): void {
    this.events.push(event);
  }

  /** Forgets what happened before `oldestMs` (the retention window's start). */
  prune(oldestMs: number): void {
    let drop = 0;
    while (drop < this.events.length && this.events[drop].atMs < oldestMs) drop++;
    if (drop > 0) this.events = this.events.slice(drop);
  }

  /** Events with an LSN greater than `lsn`, in LSN order. */
  *after(lsn: number): Generator<VersionEvent> {
    let lo = 0;
    let hi = this.events.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.events[mid].lsn <= lsn) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < this.events.length; i++) yield this.events[i];
  }
}
