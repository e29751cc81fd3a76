import { JsonObject, JsonValue, isJsonObject } from './types';

/**
 * How many property values of a document its container's indexing policy indexes: the part of a write's
 * charge that depends on "indexed paths". A leaf is a scalar at a path like `/a/b` or `/tags/[]`; an
 * included or excluded path (`/a/?` the scalar at `/a`, `/a/*` everything under `/a`, `/*` everything)
 * applies to it, and the most specific one (most segments; on a tie the exclusion) decides. Mode `none`
 * or `automatic: false` indexes nothing. System properties the service never indexes are left out.
 */
const NOT_INDEXED = new Set(['_rid', '_self', '_attachments']);

interface PathRule {
  segments: string[];
  /** `?`: the scalar at exactly these segments; `*`: these segments and everything below. */
  wildcard: '?' | '*';
  include: boolean;
}

function parseRule(path: unknown, include: boolean): PathRule | undefined {
  if (typeof path !== 'string' || !path.startsWith('/')) return undefined;
  const segments = path
    .slice(1)
    .split('/')
    .map((s) => (s.length >= 2 && s.startsWith('"') && s.endsWith('"') ? s.slice(1, -1) : s));
  const last = segments.pop();
  if (last !== '?' && last !== '*') return undefined;
  return { segments, wildcard: last, include };
}

function rules(policy: JsonObject): PathRule[] {
  const out: PathRule[] = [];
  for (const [key, include] of [
    ['includedPaths', true],
    ['excludedPaths', false],
  ] as const) {
    const list = policy[key];
    if (!Array.isArray(list)) continue;
    for (const entry of list) {
      const rule = isJsonObject(entry) ? parseRule(entry.path, include) : undefined;
      if (rule) out.push(rule);
    }
  }
  return out;
}

function matches(rule: PathRule, leaf: readonly string[]): boolean {
  if (rule.wildcard === '?' ? leaf.length !== rule.segments.length : leaf.length < rule.segments.length) return false;
  return rule.segments.every((s, i) => s === leaf[i]);
}

function indexed(all: readonly PathRule[], leaf: readonly string[]): boolean {
  let best: PathRule | undefined;
  for (const rule of all) {
    if (!matches(rule, leaf)) continue;
    if (!best || rule.segments.length > best.segments.length || (rule.segments.length === best.segments.length && !rule.include))
      best = rule;
  }
  return best?.include ?? false;
}

/** Leaf paths of `value` (array elements as `[]`), walked without recursion. */
function leaves(body: JsonObject): string[][] {
  const out: string[][] = [];
  const stack: Array<[JsonValue, string[]]> = [];
  for (const [k, v] of Object.entries(body)) if (!NOT_INDEXED.has(k)) stack.push([v, [k]]);
  while (stack.length > 0) {
    const [v, path] = stack.pop() as [JsonValue, string[]];
    if (Array.isArray(v)) for (const item of v) stack.push([item, [...path, '[]']]);
    else if (isJsonObject(v)) for (const [k, child] of Object.entries(v)) stack.push([child, [...path, k]]);
    else out.push(path);
  }
  return out;
}

export function indexedTermCount(body: JsonObject, policy: JsonObject): number {
  const mode = typeof policy.indexingMode === 'string' ? policy.indexingMode.toLowerCase() : 'consistent';
  if (mode === 'none' || policy.automatic === false) return 0;
  const all = rules(policy);
  let count = 0;
  for (const leaf of leaves(body)) if (indexed(all, leaf)) count++;
  return count;
}
