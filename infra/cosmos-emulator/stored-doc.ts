import { JsonObject } from './types';

/**
 * One stored version of a document: the visible body (user properties plus `_rid`, `_self`, `_etag`,
 * `_attachments`, `_ts`), its serialised form (answers are built from it without re-encoding), its LSN
 * and where it lives. Stored documents are never mutated; a write stores a new object. As on the
 * service, `_lsn` appears only on change-feed items (`feedJson`), never on reads, writes or queries.
 */
export interface StoredDoc {
  /** Unique within the container: partition key text + NUL + id. */
  readonly key: string;
  readonly id: string;
  readonly pkText: string;
  readonly epk: string;
  readonly body: JsonObject;
  readonly json: string;
  readonly lsn: number;
  /** Write time in ms (the body's `_ts` is this in whole seconds); TTL counts from here. */
  readonly writeMs: number;
  /** The item's own `ttl`, when it is a valid number. */
  readonly ttl: number | undefined;
}

export function docKey(pkText: string, id: string): string {
  return `${pkText}\u0000${id}`;
}

/** The document as a change-feed item: the body plus `_lsn`. */
export function feedJson(doc: StoredDoc): string {
  return `${doc.json.slice(0, -1)},"_lsn":${doc.lsn}}`;
}
