import { ContainerMeta } from './container';
import { OfferState } from './offers';
import { UserState } from './users';
import { JsonObject } from './types';

/** A stored document as the journal carries it; key, id and ttl are derived from the body. */
export interface JournalDoc {
  /** Visible body including system properties. */
  b: JsonObject;
  /** Partition key text. */
  p: string;
  /** Effective partition key. */
  e: string;
  /** Write time, ms. */
  w: number;
  /** LSN (journals written before it was a field carry it as the body's `_lsn`). */
  l?: number;
}

/**
 * What the journal records: absolute state assignments, so replaying a record twice changes nothing
 * (which keeps the snapshot + journal hand-over crash-safe).
 */
export type JournalRecord =
  | { k: 'db+'; id: string; rid: string; ts: number; etag: string }
  | { k: 'db-'; id: string }
  | { k: 'coll+'; db: string; meta: ContainerMeta }
  | { k: 'coll~'; db: string; id: string; ts: number; etag: string; defaultTtl?: number; indexingPolicy: JsonObject; extra: JsonObject }
  | { k: 'coll-'; db: string; id: string }
  | { k: 'w'; db: string; c: string; lsn: number; seq: number; puts: JournalDoc[]; dels: { k: string; e: string }[] }
  | { k: 'split'; db: string; c: string; range: string }
  | { k: 'offer'; offer: OfferState }
  | { k: 'user'; db: string; user: UserState }
  | { k: 'user-'; db: string; id: string };

export function isJournalRecord(value: unknown): value is JournalRecord {
  if (typeof value !== 'object' || value === null) return false;
  const k = (value as { k?: unknown }).k;
  return (
    k === 'db+' ||
    k === 'db-' ||
    k === 'coll+' ||
    k === 'coll~' ||
    k === 'coll-' ||
    k === 'w' ||
    k === 'split' ||
    k === 'offer' ||
    k === 'user' ||
    k === 'user-'
  );
}
