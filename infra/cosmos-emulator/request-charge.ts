/**
 * The request-unit cost model behind every `x-ms-request-charge`. Calibrated on the figures the service
 * publishes ("Optimize request cost in Azure Cosmos DB", learn.microsoft.com, and a maintainer's answer in
 * MicrosoftDocs/azure-docs#50040); where nothing is published the value is this emulator's assumption and
 * the README says so. Deterministic: the same request on the same data always costs the same, as on the
 * service. Charges are rounded to hundredths, as the service prints them.
 *
 * Published anchors:
 * - point read of a 1 KB item: 1 RU; of a 100 KB item: 10 RU (the curve between is linear here);
 * - inserting a 1 KB item without indexing: ~5.5 RU; replacing costs twice the insert of the same item;
 * - a query that retrieved one 9,963-byte document: 3.19 RU; a query returning 1,000 1 KB items: ~1,000 RU;
 * - change feed: the first read of a page ~2 RU, then about one point read per item.
 */
export const KB = 1024;
/** Extra RU per KB above the first, so that 1 KB → 1 RU and 100 KB → 10 RU. */
const READ_RU_PER_EXTRA_KB = 9 / 99;
/** Insert of a 1 KB item with nothing indexed (published: ~5.5 RU). */
export const INSERT_BASE_RU = 5.5;
/** Per indexed property value written (assumption: the service publishes no per-path figure). */
export const INDEX_TERM_RU = 0.1;
/** A query page's fixed part (compile, plan, index lookup): 3.19 RU published for one 9,963-byte document. */
export const QUERY_PAGE_BASE_RU = 1.39;
/** Per document a query examined (assumption: the index lookup; the emulator has no index and looks at all). */
export const QUERY_SCAN_RU_PER_DOC = 0.01;
/** A change-feed page's fixed part: with one 1 KB item the page costs ~2 RU (published). */
export const CHANGE_FEED_PAGE_BASE_RU = 1;
/** An empty change-feed poll, 304 (assumption: the minimum read charge; nothing is published). */
export const CHANGE_FEED_EMPTY_RU = 1;
/** Reads and writes of databases, containers, the account and partition key ranges (assumption). */
export const METADATA_RU = 1;
/** A point operation that found nothing or was refused after a lookup (404, 409, 412; assumption). */
export const LOOKUP_RU = 1;

export const roundCharge = (ru: number): number => Math.round(ru * 100) / 100;

/** Reading one stored item of `bytes` (point read, or a document a query or the change feed loads). */
export function readUnits(bytes: number): number {
  const kb = bytes / KB;
  return kb <= 1 ? 1 : 1 + (kb - 1) * READ_RU_PER_EXTRA_KB;
}

/** Inserting an item of `bytes` with `indexedTerms` property values indexed. */
export function insertUnits(bytes: number, indexedTerms: number): number {
  return INSERT_BASE_RU * readUnits(bytes) + INDEX_TERM_RU * indexedTerms;
}

export type WriteKind = 'insert' | 'replace' | 'delete';

/** A write: replace (and patch, and an upsert that replaces) costs twice the insert; a delete, one insert of what it removes. */
export function writeUnits(kind: WriteKind, bytes: number, indexedTerms: number): number {
  const insert = insertUnits(bytes, indexedTerms);
  return kind === 'replace' ? 2 * insert : insert;
}

/** One query page: its base, every document examined, and every row it returns read like an item. */
export function queryUnits(scannedDocs: number, outputBytes: readonly number[]): number {
  let ru = QUERY_PAGE_BASE_RU + QUERY_SCAN_RU_PER_DOC * scannedDocs;
  for (const bytes of outputBytes) ru += readUnits(bytes);
  return ru;
}

/** One change-feed page of items (an empty one is CHANGE_FEED_EMPTY_RU). */
export function changeFeedUnits(itemBytes: readonly number[]): number {
  if (itemBytes.length === 0) return CHANGE_FEED_EMPTY_RU;
  let ru = CHANGE_FEED_PAGE_BASE_RU;
  for (const bytes of itemBytes) ru += readUnits(bytes);
  return ru;
}

/** What a failed request costs: a lookup that found a reason to refuse, or nothing. */
export function errorUnits(status: number): number {
  return status === 404 || status === 409 || status === 412 ? LOOKUP_RU : 0;
}
