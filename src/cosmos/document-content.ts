/** What a document says, apart from what Cosmos adds: for "update only if changed" and for writes. */

/** Properties Cosmos sets on every item; `ttl` is the writer's, so it is not among them. */
const SYSTEM_FIELDS = new Set(['_rid', '_self', '_etag', '_attachments', '_ts', '_lsn']);

/** A copy without Cosmos system properties (what a write should send). */
export function withoutSystemFields<T extends object>(doc: T): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(doc)) if (!SYSTEM_FIELDS.has(k) && v !== undefined) out[k] = v;
  return out as T;
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[key];
      if (v !== undefined) out[key] = canonical(v);
    }
    return out;
  }
  return value;
}

/** Same content ignoring system properties, key order and `undefined` members. */
export function sameContent(a: object, b: object): boolean {
  return JSON.stringify(canonical(withoutSystemFields(a))) === JSON.stringify(canonical(withoutSystemFields(b)));
}
