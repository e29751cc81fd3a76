import { ContainerState, FeedScope } from './container';
import { badRequest } from './errors';
import { parseLsnEtag } from './lsn-etag';
import { epkInRange } from './partitioning';
import { CHANGE_FEED_EMPTY_RU, changeFeedUnits } from './request-charge';
import { containerHeaders, feedBody, sessionToken, sessionTokens } from './respond';
import { feedJson } from './stored-doc';
import { EmulatorRequest, EmulatorResponse, JsonObject, JsonValue } from './types';
import { VersionEvent, retentionMinutes } from './version-history';

/**
 * Change feed in all-versions-and-deletes mode (`A-IM: Full-Fidelity Feed`, wire format 2021-09-15):
 * every create, replace and delete after the continuation LSN, each as
 * `{current?, metadata: {lsn, crts, operationType, previousImageLSN?, timeToLiveExpired?, id?, partitionKey?}}`.
 * It starts "now" (`If-None-Match: *`) or from a continuation; the service keeps versions only for the
 * container's retention period, so it refuses a start from the beginning (400), and so does this.
 */
export const FULL_FIDELITY_FEED = 'full-fidelity feed';

export function isAllVersionsFeed(req: EmulatorRequest): boolean {
  return req.headers['a-im']?.toLowerCase() === FULL_FIDELITY_FEED;
}

function afterLsn(req: EmulatorRequest): number | 'now' {
  const inm = req.headers['if-none-match']?.trim();
  if (inm === undefined || inm === '') {
    throw badRequest(
      'All versions and deletes change feed cannot start from the beginning. You must read the change feed from within the retention period.',
    );
  }
  return inm === '*' ? 'now' : parseLsnEtag(inm);
}

/** The partition key as the service names it on a delete: the document's values at the key's paths. */
function partitionKeyOf(container: ContainerState, body: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const path of container.meta.partitionKey.paths) {
    const parts = path.split('/').filter((p) => p !== '');
    let from: JsonValue | undefined = body;
    let into = out;
    parts.forEach((part, i) => {
      from = from !== undefined && from !== null && typeof from === 'object' && !Array.isArray(from) ? from[part] : undefined;
      if (i === parts.length - 1) {
        if (from !== undefined) into[part] = from;
      } else {
        const next = into[part];
        into = next !== undefined && next !== null && typeof next === 'object' && !Array.isArray(next) ? next : (into[part] = {});
      }
    });
  }
  return out;
}

function itemJson(container: ContainerState, e: VersionEvent): string {
  const metadata: JsonObject = { lsn: e.lsn, crts: Math.floor(e.atMs / 1000), operationType: e.kind };
  if (e.previous) metadata.previousImageLSN = e.previous.lsn;
  if (e.kind === 'delete' && e.previous) {
    metadata.timeToLiveExpired = false;
    metadata.id = e.id;
    metadata.partitionKey = partitionKeyOf(container, e.previous.body);
  }
  const current = e.current ? `"current":${feedJson(e.current)},` : '';
  return `{${current}"metadata":${JSON.stringify(metadata)}}`;
}

export function readAllVersionsFeed(container: ContainerState, req: EmulatorRequest, scope: FeedScope, maxItems: number): EmulatorResponse {
  const start = afterLsn(req);
  if (retentionMinutes(container.meta.extra) === 0) {
    throw badRequest(
      'All versions and deletes change feed needs a change feed policy: create the container with changeFeedPolicy.retentionDuration (minutes).',
    );
  }
  const committed = container.committedLsn;
  const ranges = container.rangesInScope(scope);
  const session = ranges.length === 1 ? sessionToken(ranges[0].id, committed) : sessionTokens(container, committed);
  const rangeHeader: Record<string, string> = ranges.length === 1 ? { 'x-ms-documentdb-partitionkeyrangeid': ranges[0].id } : {};
  const headers = (etag: number, count: number): Record<string, string> => ({
    ...containerHeaders(container),
    ...rangeHeader,
    etag: `"${etag}"`,
    'x-ms-session-token': session,
    lsn: String(committed),
    'x-ms-item-count': String(count),
  });
  const page: VersionEvent[] = [];
  if (start !== 'now') {
    const inRanges = (e: VersionEvent): boolean => ranges.some((r) => epkInRange(e.epk, r.min, r.max));
    for (const e of container.history?.after(start) ?? []) {
      if (e.lsn > committed) break;
      if (page.length >= maxItems && e.lsn !== page[page.length - 1].lsn) break;
      if (inRanges(e) && container.inScope(e, scope)) page.push(e);
    }
  }
  if (page.length === 0) return { status: 304, headers: headers(committed, 0), charge: CHANGE_FEED_EMPTY_RU };
  const items = page.map((e) => itemJson(container, e));
  return {
    status: 200,
    headers: headers(page[page.length - 1].lsn, page.length),
    body: feedBody(container.rid, 'Documents', items),
    charge: changeFeedUnits(items.map((j) => Buffer.byteLength(j))),
  };
}
