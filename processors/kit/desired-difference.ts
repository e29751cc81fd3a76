/** A plain JSON object (not an array). */
type JsonObject = Readonly<Record<string, unknown>>;

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * What of `desired` differs from what Clusters Service holds (`held`), as a PATCH body, or undefined
 * when nothing differs. Both are in Clusters Service's shape and normalized by the caller (absent
 * collections as empty, sorted lists), so that equal states compare equal. A field left undefined in
 * `desired` is not opstream's to set and is never sent. Objects are compared field by field and only
 * their differing fields are sent (Clusters Service merges a PATCH into what it holds), except at the
 * paths in `whole` (e.g. `labels`): a map whose removed keys must go too is sent whole. Arrays are
 * always sent whole.
 */
export function desiredDifference<T extends object>(desired: T, held: object, whole: readonly string[] = []): Partial<T> | undefined {
  const patch = diff(desired as JsonObject, held as JsonObject, '', new Set(whole));
  return patch as Partial<T> | undefined;
}

function diff(desired: JsonObject, held: unknown, path: string, whole: ReadonlySet<string>): JsonObject | undefined {
  const heldObject = isObject(held) ? held : {};
  const out: Record<string, unknown> = {};
  for (const [key, want] of Object.entries(desired)) {
    if (want === undefined) continue;
    const at = path ? `${path}.${key}` : key;
    const have = heldObject[key];
    if (isObject(want) && !whole.has(at) && isObject(have)) {
      const inner = diff(want, have, at, whole);
      if (inner) out[key] = inner;
    } else if (!sameJson(want, have)) out[key] = want;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/** Equal as JSON values: key order and where an object was made (its prototype) do not matter. */
function sameJson(a: unknown, b: unknown): boolean {
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((v, i) => sameJson(v, b[i]));
  if (isObject(a)) {
    if (!isObject(b)) return false;
    const keys = Object.keys(a).filter((k) => a[k] !== undefined);
    return keys.length === Object.keys(b).filter((k) => b[k] !== undefined).length && keys.every((k) => sameJson(a[k], b[k]));
  }
  return a === b;
}
