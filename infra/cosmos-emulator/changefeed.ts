import { isAllVersionsFeed, readAllVersionsFeed } from './all-versions-feed';
import { ContainerState, FeedScope } from './container';
import { badRequest } from './errors';
import { parseLsnEtag } from './lsn-etag';
import { containerHeaders, feedBody, sessionToken, sessionTokens } from './respond';
import { StoredDoc, feedJson } from './stored-doc';
import { isExpired } from './ttl';
import { CHANGE_FEED_EMPTY_RU, changeFeedUnits } from './request-charge';
import { EmulatorRequest, EmulatorResponse } from './types';

/**
 * Change feed, latest-version mode (all versions and deletes: all-versions-feed.ts). The start comes from the request:
 *   `If-None-Match: *` → now (304 with the current LSN); `If-None-Match: "<lsn>"` → after that LSN;
 *   otherwise `If-Modified-Since` → writes at or after that time; otherwise the beginning.
 * A page holds the current version of each changed document in LSN order, at most `maxItems`, but
 * never ends in the middle of a transactional batch (a batch's writes share one LSN). The etag is the
 * LSN of the last document returned, or the container's committed LSN on 304. Nothing beyond the
 * committed LSN (durable, with a journal) is ever shown.
 */
export function isChangeFeedRequest(req: EmulatorRequest): boolean {
  const aim = req.headers['a-im'];
  return aim !== undefined && (aim.toLowerCase() === 'incremental feed' || isAllVersionsFeed(req));
}

export function assertSupportedFeedMode(req: EmulatorRequest): void {
  const aim = req.headers['a-im'];
  if (aim !== undefined && aim.toLowerCase() !== 'incremental feed' && !isAllVersionsFeed(req)) {
    throw badRequest(`Change feed mode "${aim}" is not supported by the emulator; only "Incremental feed" and "Full-Fidelity Feed".`);
  }
}

interface Start {
  afterLsn: number;
  sinceMs?: number;
}

function startOf(req: EmulatorRequest): Start | 'now' {
  const inm = req.headers['if-none-match'];
  if (inm !== undefined && inm.trim() !== '') {
    if (inm.trim() === '*') return 'now';
    return { afterLsn: parseLsnEtag(inm) };
  }
  const ims = req.headers['if-modified-since'];
  if (ims !== undefined) {
    const ms = Date.parse(ims);
    if (Number.isNaN(ms)) throw badRequest(`If-Modified-Since ${ims} is not a valid date.`);
    return { afterLsn: 0, sinceMs: ms };
  }
  return { afterLsn: 0 };
}

export function readChangeFeed(
  container: ContainerState,
  req: EmulatorRequest,
  scope: FeedScope,
  maxItems: number,
  nowMs: number,
): EmulatorResponse {
  if (isAllVersionsFeed(req)) return readAllVersionsFeed(container, req, scope, maxItems);
  const committed = container.committedLsn;
  const ranges = container.rangesInScope(scope);
  const session = ranges.length === 1 ? sessionToken(ranges[0].id, committed) : sessionTokens(container, committed);
  // the physical partition that answered, as the service names it on every change-feed response
  const rangeHeader: Record<string, string> = ranges.length === 1 ? { 'x-ms-documentdb-partitionkeyrangeid': ranges[0].id } : {};
  const start = startOf(req);
  const notModified = (): EmulatorResponse => ({
    status: 304,
    headers: {
      ...containerHeaders(container),
      ...rangeHeader,
      etag: `"${committed}"`,
      'x-ms-session-token': session,
      lsn: String(committed),
      'x-ms-item-count': '0',
    },
    charge: CHANGE_FEED_EMPTY_RU,
  });
  if (start === 'now') return notModified();

  const page: StoredDoc[] = [];
  const accept = (doc: StoredDoc): boolean =>
    container.inScope(doc, scope) &&
    !isExpired(doc, container.defaultTtl, nowMs) &&
    (start.sinceMs === undefined || doc.writeMs >= start.sinceMs);

  if (ranges.length === 1) {
    for (const doc of ranges[0].changesAfter(start.afterLsn)) {
      if (doc.lsn > committed) break;
      if (page.length >= maxItems && doc.lsn !== page[page.length - 1].lsn) break;
      if (accept(doc)) page.push(doc);
    }
  } else {
    const candidates: StoredDoc[] = [];
    for (const range of ranges) {
      for (const doc of range.changesAfter(start.afterLsn)) {
        if (doc.lsn > committed) break;
        if (accept(doc)) candidates.push(doc);
      }
    }
    candidates.sort((a, b) => a.lsn - b.lsn);
    for (const doc of candidates) {
      if (page.length >= maxItems && doc.lsn !== page[page.length - 1].lsn) break;
      page.push(doc);
    }
  }
  if (page.length === 0) return notModified();
  const last = page[page.length - 1].lsn;
  const items = page.map(feedJson);
  return {
    status: 200,
    headers: {
      ...containerHeaders(container),
      ...rangeHeader,
      etag: `"${last}"`,
      'x-ms-session-token': session,
      lsn: String(committed),
      'x-ms-item-count': String(page.length),
    },
    body: feedBody(container.rid, 'Documents', items),
    charge: changeFeedUnits(items.map((j) => Buffer.byteLength(j))),
  };
}
