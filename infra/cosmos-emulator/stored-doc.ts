import { JsonObject } from './types';

/**
 * One stored version of a document: the visible body (user properties plus `_rid`, `_self`, `_etag`,
 * `_attachments`, `_ts`, `_lsn`), its serialised form (answers are built from it without re-encoding),
 * and where it lives. Stored documents are never mutated; a write stores a new object.
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
