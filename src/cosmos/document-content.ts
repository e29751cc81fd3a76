/** What a document says, apart from what Cosmos adds: for "update only if changed" and for writes. */
import { stringifyJson } from '../util/json-walk';

/** Properties Cosmos sets on every item; `ttl` is the writer's, so it is not among them. */
const SYSTEM_FIELDS = new Set(['_rid', '_self', '_etag', '_attachments', '_ts', '_lsn']);

/** A copy without Cosmos system properties (what a write should send); shallow, like the copy it makes. */
export function withoutSystemFields<T extends object>(doc: T): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(doc)) {
    if (SYSTEM_FIELDS.has(k) || v === undefined) continue;
    // a "__proto__" member is data, never the copy's prototype
    if (k === '__proto__') Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
    else out[k] = v;
  }
  return out as T;
}

/** JSON with sorted keys and no `undefined` members, at any depth (an iterative walk, no recursion). */
function canonicalJson(value: object): string {
  return stringifyJson(value, { sortKeys: true }) ?? '';
}

/** Same content ignoring system properties, key order and `undefined` members. */
export function sameContent(a: object, b: object): boolean {
  return canonicalJson(withoutSystemFields(a)) === canonicalJson(withoutSystemFields(b));
}
