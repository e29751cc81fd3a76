import type { Json } from './store';

/** Fields a PATCH replaces whole rather than merges: a map whose removed keys must go (as Clusters Service treats node pool labels). */
const REPLACED_WHOLE = new Set(['labels']);

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `patch` taken into `body`: objects merged field by field, arrays and `labels` replaced whole. */
export function mergePatch(body: Json, patch: Json): Json {
  const out: Json = { ...body };
  for (const [key, value] of Object.entries(patch)) {
    const before = out[key];
    out[key] = !REPLACED_WHOLE.has(key) && isObject(value) && isObject(before) ? mergePatch(before, value) : value;
  }
  return out;
}
