/**
 * Walks over JSON values that never recurse. Documents come from outside and may nest thousands of
 * levels deep: `JSON.parse` accepts any depth, but `JSON.stringify` (~4,000 levels), `structuredClone`
 * (~2,000), ajv and any recursive copy overflow the stack on them. Everything here keeps its own
 * stack, so the depth of a value costs memory, never call stack.
 */

type Container = Record<string, unknown> | unknown[];

/** What `JSON.stringify` makes of a value: `toJSON` applied, boxed primitives unwrapped, `undefined` when left out. */
export function jsonView(value: unknown, key: string): unknown {
  let v = value;
  if (v !== null && typeof v === 'object' && typeof (v as { toJSON?: unknown }).toJSON === 'function') {
    v = (v as { toJSON(key: string): unknown }).toJSON(key);
  }
  if (v instanceof Number || v instanceof String || v instanceof Boolean) v = v.valueOf();
  switch (typeof v) {
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
    case 'number':
      return Number.isFinite(v) ? v : null;
    case 'bigint':
      return v.toString();
    default:
      return v;
  }
}

export function isContainer(value: unknown): value is Container {
  return value !== null && typeof value === 'object';
}

/** Own enumerable keys, as `JSON.stringify` visits them. */
function keysOf(value: Container, sort: boolean): string[] {
  const keys = Array.isArray(value) ? [] : Object.keys(value);
  return sort ? keys.sort() : keys;
}

export interface StringifyOptions {
  /** Containers nested deeper than this (the root is level 1) are written as `depthMarker`. @defaultValue Infinity */
  maxDepth?: number;
  /** Object keys in sorted order (a canonical form). @defaultValue false */
  sortKeys?: boolean;
  /** @defaultValue "[nested deeper than {maxDepth} levels]" */
  depthMarker?: string;
}

interface Frame {
  value: Container;
  keys: string[];
  i: number;
  wrote: boolean;
}

/**
 * Values nesting at most this deep go to the native `JSON.stringify` (fast; recursive in C++, far
 * from its stack limit at this depth); deeper ones to the iterative writer below.
 */
const NATIVE_DEPTH = 256;

function sortedKeys(_key: string, v: unknown): unknown {
  if (!isContainer(v) || Array.isArray(v)) return v;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v).sort()) {
    if (k === '__proto__') Object.defineProperty(out, k, { value: v[k], enumerable: true, writable: true, configurable: true });
    else out[k] = v[k];
  }
  return out;
}

/**
 * `JSON.stringify(value)` for any depth, optionally with sorted keys and a depth limit. A cycle is
 * written as the string "[circular]" instead of throwing. Returns undefined where JSON.stringify does.
 */
export function stringifyJson(value: unknown, options: StringifyOptions = {}): string | undefined {
  const maxDepth = options.maxDepth ?? Infinity;
  const sort = options.sortKeys ?? false;
  // A shallow value (a cycle reads as too deep) is safe for the native serializer.
  if (tooDeepAt(value, Math.min(maxDepth, NATIVE_DEPTH)) === undefined) {
    try {
      return sort ? JSON.stringify(value, sortedKeys) : JSON.stringify(value);
    } catch {
      // a toJSON that nests deeper, or throws: the walk below
    }
  }
  return stringifyIteratively(value, maxDepth, sort, options.depthMarker);
}

function stringifyIteratively(value: unknown, maxDepth: number, sort: boolean, marker: string | undefined): string | undefined {
  const depthMarker = JSON.stringify(marker ?? `[nested deeper than ${maxDepth} levels]`);
  const root = jsonView(value, '');
  if (root === undefined) return undefined;
  let out = '';
  const stack: Frame[] = [];
  const open = new Set<object>();
  const write = (v: unknown): void => {
    if (!isContainer(v)) {
      out += scalarJson(v);
    } else if (open.has(v)) {
      out += '"[circular]"';
    } else if (stack.length >= maxDepth) {
      out += depthMarker;
    } else {
      out += Array.isArray(v) ? '[' : '{';
      open.add(v);
      stack.push({ value: v, keys: keysOf(v, sort), i: 0, wrote: false });
    }
  };
  write(root);
  while (stack.length > 0) {
    const top = stack[stack.length - 1];
    if (Array.isArray(top.value)) {
      if (top.i >= top.value.length) {
        close(top, ']');
        continue;
      }
      const index = top.i++;
      if (top.wrote) out += ',';
      top.wrote = true;
      const v = jsonView(top.value[index], String(index));
      write(v === undefined ? null : v);
      continue;
    }
    if (top.i >= top.keys.length) {
      close(top, '}');
      continue;
    }
    const key = top.keys[top.i++];
    const v = jsonView(top.value[key], key);
    if (v === undefined) continue;
    out += `${top.wrote ? ',' : ''}${JSON.stringify(key)}:`;
    top.wrote = true;
    write(v);
  }
  return out;

  function close(frame: Frame, bracket: string): void {
    out += bracket;
    open.delete(frame.value);
    stack.pop();
  }
}

/** JSON text of a value `jsonView` returned that is not a container. */
function scalarJson(v: unknown): string {
  switch (typeof v) {
    case 'number':
    case 'boolean':
      return String(v);
    case 'string':
      return JSON.stringify(v);
    default:
      return 'null';
  }
}

/** UTF-8 bytes of `JSON.stringify(value)` (0 when it gives undefined); any depth. */
export function jsonByteLength(value: unknown): number {
  const text = stringifyJson(value);
  return text === undefined ? 0 : Buffer.byteLength(text, 'utf8');
}

/**
 * Where `value` nests deeper than `maxDepth` levels (the root container is level 1): the JSON
 * pointer of the top-level member (or item) that does, or undefined. Stops
 * at the first such member, so a cycle is reported as too deep rather than walked forever.
 */
export function tooDeepAt(value: unknown, maxDepth: number): string | undefined {
  if (!isContainer(value)) return undefined;
  if (maxDepth < 1) return '';
  // Parallel stacks (no object per entry): the containers still to visit, their level, and the
  // top-level member each one is under.
  const values: Container[] = [];
  const depths: number[] = [];
  const tops: string[] = [];
  const visit = (child: unknown, depth: number, top: string): boolean => {
    if (!isContainer(child)) return false;
    if (depth > maxDepth) return true;
    values.push(child);
    depths.push(depth);
    tops.push(top);
    return false;
  };
  for (const key of Object.keys(value)) {
    const top = `/${escapePointer(key)}`;
    if (visit((value as Record<string, unknown>)[key], 2, top)) return top;
  }
  while (values.length > 0) {
    const v = values.pop() as Container;
    const depth = (depths.pop() as number) + 1;
    const top = tops.pop() as string;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) if (visit(v[i], depth, top)) return top;
    } else {
      for (const key in v) {
        if (Object.prototype.hasOwnProperty.call(v, key) && visit(v[key], depth, top)) return top;
      }
    }
  }
  return undefined;
}

function escapePointer(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}
