/**
 * The copy of a source document a dead letter keeps: the whole document when it fits, else what
 * fits of it. Cosmos refuses items over 2 MB (413) and nesting deeper than 128 levels, and a dead
 * letter wraps the document in its own fields, so the copy is capped well below both (1 MiB of
 * JSON text, 64 levels by default). The walk is iterative: no document can overflow the stack.
 *
 * What a cut copy looks like: identifiers first (`id`, `partitionKey`, `_etag`, `_lsn`, `_ts`, …),
 * then the other members in document order until the budget is spent; a long string is cut with
 * "…[truncated: N bytes]", a container nested too deep becomes "[truncated: nested deeper than
 * 64 levels]", and a container whose members were left out gets a last member `"$truncated"` (an
 * item for arrays) saying how many.
 */
import { isContainer, jsonView, stringifyJson, tooDeepAt } from '../util/json-walk';

export interface CopyLimits {
  /** UTF-8 bytes of JSON text kept (markers may add a few hundred more). @defaultValue 1 MiB */
  maxBytes: number;
  /** Nesting levels kept, the document itself being level 1. @defaultValue 64 */
  maxDepth: number;
}

export const COPY_LIMITS: Readonly<CopyLimits> = Object.freeze({ maxBytes: 1024 * 1024, maxDepth: 64 });

/** Members copied first, so that they survive any cut. */
const IDENTIFYING_FIELDS: readonly string[] = ['id', 'partitionKey', '_etag', '_lsn', '_ts', '_rid', '_self'];

export const TRUNCATED_KEY = '$truncated';

export interface DocumentCopy {
  document: Record<string, unknown>;
  /** UTF-8 bytes of the source document's JSON text. */
  originalBytes: number;
  /** UTF-8 bytes of the copy's JSON text. */
  keptBytes: number;
  /** Why the copy is not the whole document; empty when it is. */
  cut: Array<'size' | 'depth'>;
}

const utf8 = (text: string): number => Buffer.byteLength(text, 'utf8');
/** Below this many bytes left, a long string is dropped rather than cut to a stub. */
const MIN_STRING_PREFIX = 64;

/** A copy of `source` within `limits` (never throws, never recurses). */
export function copyWithinLimits(source: Record<string, unknown>, limits: CopyLimits = COPY_LIMITS): DocumentCopy {
  const whole = stringifyJson(source) ?? '{}';
  const originalBytes = utf8(whole);
  if (originalBytes <= limits.maxBytes && tooDeepAt(source, limits.maxDepth) === undefined) {
    return { document: JSON.parse(whole) as Record<string, unknown>, originalBytes, keptBytes: originalBytes, cut: [] };
  }
  const walk = new BoundedWalk(limits);
  const document = walk.copy(source);
  const keptBytes = utf8(stringifyJson(document) ?? '{}');
  const cut: DocumentCopy['cut'] = [];
  if (walk.cutBySize) cut.push('size');
  if (walk.cutByDepth) cut.push('depth');
  return { document, originalBytes, keptBytes, cut };
}

/** Only the identifying fields (when they are short scalars), for a dead letter Cosmos refused with the fuller copy. */
export function identifiersOnly(source: Record<string, unknown>, why: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of IDENTIFYING_FIELDS) {
    const v = source[key];
    if ((typeof v === 'string' && v.length <= 2048) || (typeof v === 'number' && Number.isFinite(v))) out[key] = v;
  }
  out[TRUNCATED_KEY] = why;
  return out;
}

interface Frame {
  source: Record<string, unknown> | unknown[];
  target: Record<string, unknown> | unknown[];
  keys: string[];
  i: number;
  /** Members placed in `target` so far. */
  placed: number;
  depth: number;
}

class BoundedWalk {
  cutBySize = false;
  cutByDepth = false;
  private used = 2;
  private full = false;

  constructor(private readonly limits: CopyLimits) {}

  copy(source: Record<string, unknown>): Record<string, unknown> {
    const root: Record<string, unknown> = {};
    const first = IDENTIFYING_FIELDS.filter((k) => Object.prototype.hasOwnProperty.call(source, k));
    const rest = Object.keys(source).filter((k) => !IDENTIFYING_FIELDS.includes(k));
    const stack: Frame[] = [{ source, target: root, keys: [...first, ...rest], i: 0, placed: 0, depth: 1 }];
    while (stack.length > 0) {
      const top = stack[stack.length - 1];
      const length = Array.isArray(top.source) ? top.source.length : top.keys.length;
      if (this.full || top.i >= length) {
        this.finish(top, length - top.i);
        stack.pop();
        continue;
      }
      const index = top.i++;
      const key = Array.isArray(top.source) ? String(index) : top.keys[index];
      const raw = Array.isArray(top.source) ? top.source[index] : top.source[key];
      let v = jsonView(raw, key);
      if (v === undefined) {
        if (!Array.isArray(top.source)) continue;
        v = null;
      }
      const comma = top.placed > 0 ? 1 : 0;
      const keyCost = Array.isArray(top.target) ? comma : utf8(JSON.stringify(key)) + 1 + comma;
      const child = this.place(v, keyCost, top.depth);
      if (child === undefined) {
        top.i--; // not placed: counted among the members left out
        continue;
      }
      top.placed++;
      if (Array.isArray(top.target)) top.target.push(child);
      else defineMember(top.target, key, child);
      if (isContainer(v) && isContainer(child)) {
        stack.push({ source: v, target: child, keys: Array.isArray(v) ? [] : Object.keys(v), i: 0, placed: 0, depth: top.depth + 1 });
      }
    }
    return root;
  }

  /** The value to place for `v` (a fresh empty container to fill, a scalar, a cut string, a marker), or undefined when the budget is spent. */
  private place(v: unknown, keyCost: number, parentDepth: number): unknown {
    if (isContainer(v)) {
      if (parentDepth + 1 > this.limits.maxDepth) {
        this.cutByDepth = true;
        return this.scalar(`[truncated: nested deeper than ${this.limits.maxDepth} levels]`, keyCost);
      }
      if (!this.fits(keyCost + 2)) return this.spent();
      this.used += keyCost + 2;
      return Array.isArray(v) ? [] : {};
    }
    return this.scalar(v, keyCost);
  }

  private scalar(v: unknown, keyCost: number): unknown {
    const cost = utf8(JSON.stringify(v));
    if (this.fits(keyCost + cost)) {
      this.used += keyCost + cost;
      return v;
    }
    if (typeof v === 'string') {
      const room = this.limits.maxBytes - this.used - keyCost;
      const cutText = room >= MIN_STRING_PREFIX ? cutString(v, room, cost) : undefined;
      if (cutText !== undefined) {
        this.used += keyCost + utf8(JSON.stringify(cutText));
        this.cutBySize = true;
        this.full = true;
        return cutText;
      }
    }
    return this.spent();
  }

  private fits(cost: number): boolean {
    return this.used + cost <= this.limits.maxBytes;
  }

  private spent(): undefined {
    this.cutBySize = true;
    this.full = true;
    return undefined;
  }

  /** Closes a container: says how many members were left out of it. */
  private finish(frame: Frame, leftOut: number): void {
    if (leftOut <= 0) return;
    this.cutBySize = true;
    if (Array.isArray(frame.target)) frame.target.push(`[truncated: ${leftOut} more item(s)]`);
    else defineMember(frame.target, TRUNCATED_KEY, `[truncated: ${leftOut} more member(s)]`);
  }
}

/** A prefix of `text` whose JSON, with the marker, takes at most `room` bytes; undefined if none is useful. */
function cutString(text: string, room: number, fullCost: number): string | undefined {
  const marker = `…[truncated: ${fullCost} bytes]`;
  const markerCost = utf8(JSON.stringify(marker));
  if (markerCost > room) return undefined;
  // One pass adding each character's cost in JSON text (UTF-8, escapes included).
  let used = markerCost;
  let n = 0;
  while (n < text.length) {
    const c = text.charCodeAt(n);
    let cost: number;
    let units = 1;
    if (c === 0x22 || c === 0x5c) cost = 2;
    else if (c < 0x20) cost = c === 0x08 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d ? 2 : 6;
    else if (c < 0x80) cost = 1;
    else if (c < 0x800) cost = 2;
    else if (c >= 0xd800 && c <= 0xdbff && n + 1 < text.length && (text.charCodeAt(n + 1) & 0xfc00) === 0xdc00) {
      cost = 4;
      units = 2;
    } else if (c >= 0xd800 && c <= 0xdfff)
      cost = 6; // a lone surrogate is escaped
    else cost = 3;
    if (used + cost > room) break;
    used += cost;
    n += units;
  }
  const cut = text.slice(0, n) + marker;
  return utf8(JSON.stringify(cut)) <= room ? cut : undefined;
}

/** `target[key] = value`, also for a key named `__proto__` (data, never the prototype). */
function defineMember(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}
