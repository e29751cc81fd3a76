import { ContainerState } from './container';
import { StoredDoc } from './stored-doc';
import { EmulatorResponse } from './types';
import { encodedLink } from './wire';

/** Building answers: JSON bodies, session tokens, the item headers the SDK reads. */
export function jsonResponse(status: number, body: string | undefined, headers: Record<string, string> = {}): EmulatorResponse {
  return { status, headers, body };
}

/** `x-ms-session-token` for one range: `<rangeId>:-1#<lsn>`. */
export function sessionToken(rangeId: string, lsn: number): string {
  return `${rangeId}:-1#${lsn}`;
}

/** Session tokens for several ranges, comma-separated as the SDK merges them. */
export function sessionTokens(container: ContainerState, lsn: number): string {
  return container
    .liveRanges()
    .map((r) => sessionToken(r.id, lsn))
    .join(',');
}

/**
 * Headers every container-scoped answer carries (the SDK keys session tokens by the container rid). The
 * alt content path carries names, URL-encoded per segment as the service sends it (a raw non-Latin name
 * is not a valid header value).
 */
export function containerHeaders(container: ContainerState): Record<string, string> {
  return { 'x-ms-content-path': container.rid, 'x-ms-alt-content-path': encodedLink(['dbs', container.databaseId, 'colls', container.id]) };
}

/** Headers of a point operation on the document at `epk` (etag only when a document is returned). */
export function docHeaders(container: ContainerState, epk: string, lsn: number, doc?: StoredDoc): Record<string, string> {
  const headers: Record<string, string> = {
    ...containerHeaders(container),
    'x-ms-session-token': sessionToken(container.rangeForEpk(epk).id, lsn),
    lsn: String(lsn),
  };
  if (doc) headers.etag = String(doc.body._etag);
  return headers;
}

/** `{_rid, <listName>: [...], _count}` from already-serialised items. */
export function feedBody(rid: string, listName: string, itemsJson: readonly string[]): string {
  return `{"_rid":${JSON.stringify(rid)},"${listName}":[${itemsJson.join(',')}],"_count":${itemsJson.length}}`;
}
