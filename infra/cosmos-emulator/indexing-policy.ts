import { badRequest } from './errors';
import { JsonObject, JsonValue, isJsonObject } from './types';

/**
 * An indexing policy as the service stores and returns it: `indexingMode` lower-cased (`consistent`
 * unless given; `lazy`; `none`), `automatic` filled in (true), the root path included when nothing is,
 * `/"_etag"/?` always excluded, the legacy per-path `indexes` dropped and the legacy root path `/` read as
 * `/*`; with mode `none`, no paths at all.
 * Composite, spatial and vector entries are kept as given. A mode or a path the service refuses → 400.
 */
const MODES = ['consistent', 'lazy', 'none'];
const ETAG_PATH = '/"_etag"/?';

function paths(value: JsonValue | undefined, what: string): JsonObject[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw badRequest(`indexingPolicy.${what} must be an array of {path}.`);
  return value.map((entry, i) => {
    if (!isJsonObject(entry) || typeof entry.path !== 'string' || !entry.path.startsWith('/'))
      throw badRequest(`indexingPolicy.${what}[${i}] must be {path: "/…"}.`);
    // `/` is the root in the legacy (index v1) path syntax, which the service still accepts: everything.
    const path = entry.path === '/' ? '/*' : entry.path;
    if (!/\/(\?|\*)$/.test(path)) throw badRequest(`The indexing path '${entry.path}' could not be accepted: it must end in /? or /*.`);
    const out: JsonObject = { ...entry, path };
    delete out.indexes; // the service dropped per-path index kinds; range indexes on everything
    return out;
  });
}

export function normaliseIndexingPolicy(value: unknown): JsonObject {
  if (!isJsonObject(value)) throw badRequest('indexingPolicy must be an object.');
  const mode = value.indexingMode === undefined ? 'consistent' : String(value.indexingMode).toLowerCase();
  if (!MODES.includes(mode))
    throw badRequest(`indexingPolicy.indexingMode ${String(value.indexingMode)} is not one of Consistent, Lazy, None.`);
  const out: JsonObject = { ...value, indexingMode: mode, automatic: value.automatic === undefined ? true : value.automatic };
  if (mode === 'none') return { ...out, includedPaths: [], excludedPaths: [] };
  const included = paths(value.includedPaths, 'includedPaths');
  const excluded = paths(value.excludedPaths, 'excludedPaths');
  if (included.length === 0 && !excluded.some((p) => p.path === '/*')) included.push({ path: '/*' });
  if (!excluded.some((p) => p.path === ETAG_PATH)) excluded.push({ path: ETAG_PATH });
  return { ...out, includedPaths: included, excludedPaths: excluded };
}
