import { CosmosError, badRequest, preconditionFailed } from './errors';
import { JsonObject, JsonValue, isJsonObject } from './types';

/**
 * Partial document update (Cosmos patch): add, set, replace, remove, incr and move on JSON-pointer
 * paths, at most 10 operations, optionally guarded by a SQL `FROM c WHERE …` condition (412 when false).
 * The id, the partition key paths and system properties cannot be patched.
 */
export type PatchOp = 'add' | 'set' | 'replace' | 'remove' | 'incr' | 'move';

export interface PatchOperation {
  op: PatchOp;
  path: string;
  value?: JsonValue;
  from?: string;
}

export interface PatchSpec {
  operations: PatchOperation[];
  condition?: string;
}

const OPS: readonly string[] = ['add', 'set', 'replace', 'remove', 'incr', 'move'];
const MAX_OPERATIONS = 10;
const SYSTEM = ['_rid', '_self', '_etag', '_attachments', '_ts', '_lsn'];

export function parsePatchSpec(body: unknown): PatchSpec {
  const operations: unknown = Array.isArray(body) ? body : isJsonObject(body) ? body.operations : undefined;
  if (!Array.isArray(operations) || operations.length === 0) throw badRequest('A patch request needs a non-empty array of operations.');
  if (operations.length > MAX_OPERATIONS) throw badRequest(`A patch request supports at most ${MAX_OPERATIONS} operations.`);
  const condition = isJsonObject(body) && typeof body.condition === 'string' ? body.condition : undefined;
  return { operations: operations.map(parseOperation), condition };
}

function parseOperation(raw: unknown, index: number): PatchOperation {
  if (!isJsonObject(raw)) throw badRequest(`Patch operation ${index} must be an object.`);
  const { op, path, value, from } = raw;
  if (typeof op !== 'string' || !OPS.includes(op)) throw badRequest(`Patch operation ${index} has an unknown op ${JSON.stringify(op)}.`);
  if (typeof path !== 'string' || !path.startsWith('/')) throw badRequest(`Patch operation ${index} needs a path starting with "/".`);
  if (op === 'move' && (typeof from !== 'string' || !from.startsWith('/')))
    throw badRequest(`Patch operation ${index} (move) needs a "from" path.`);
  if (op !== 'remove' && op !== 'move' && value === undefined) throw badRequest(`Patch operation ${index} (${op}) needs a value.`);
  if (op === 'incr' && typeof value !== 'number') throw badRequest(`Patch operation ${index} (incr) needs a numeric value.`);
  return { op: op as PatchOp, path, value, from: typeof from === 'string' ? from : undefined };
}

const FORBIDDEN_SEGMENTS = ['__proto__', 'constructor', 'prototype'];

function segments(path: string): string[] {
  const segs = path
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (segs.some((s) => FORBIDDEN_SEGMENTS.includes(s))) throw badRequest(`The patch path ${path} is not allowed.`);
  return segs;
}

const own = (node: JsonObject, key: string): JsonValue | undefined =>
  Object.prototype.hasOwnProperty.call(node, key) ? node[key] : undefined;

type Container = JsonObject | JsonValue[];

/** Returns the parent container and the last key of `path`, or throws 400 when the parent is missing. */
function locate(root: JsonObject, path: string): { parent: Container; key: string } {
  const segs = segments(path);
  let node: JsonValue = root;
  for (let i = 0; i < segs.length - 1; i++) {
    const next: JsonValue | undefined = Array.isArray(node) ? node[Number(segs[i])] : isJsonObject(node) ? own(node, segs[i]) : undefined;
    if (next === undefined || next === null || typeof next !== 'object')
      throw badRequest(`The patch path ${path} does not exist in the document.`);
    node = next;
  }
  if (node === null || typeof node !== 'object') throw badRequest(`The patch path ${path} does not exist in the document.`);
  return { parent: node, key: segs[segs.length - 1] };
}

function arrayIndex(arr: JsonValue[], key: string, path: string, allowEnd: boolean): number {
  if (key === '-' && allowEnd) return arr.length;
  const i = Number(key);
  if (!Number.isInteger(i) || i < 0 || i > arr.length || (!allowEnd && i === arr.length)) {
    throw badRequest(`The array index in patch path ${path} is out of range.`);
  }
  return i;
}

function read(parent: Container, key: string): JsonValue | undefined {
  return Array.isArray(parent) ? parent[Number(key)] : own(parent, key);
}

function removeAt(parent: Container, key: string, path: string): JsonValue {
  if (Array.isArray(parent)) {
    const i = arrayIndex(parent, key, path, false);
    return parent.splice(i, 1)[0];
  }
  if (!Object.prototype.hasOwnProperty.call(parent, key)) throw badRequest(`The patch path ${path} does not exist in the document.`);
  const value = parent[key];
  delete parent[key];
  return value;
}

function guard(path: string, pkPaths: readonly string[]): void {
  const first = segments(path)[0];
  if (path === '/id' || SYSTEM.includes(first)) throw badRequest(`The property at ${path} cannot be patched.`);
  for (const pk of pkPaths) {
    if (path === pk || path.startsWith(pk + '/') || pk.startsWith(path + '/'))
      throw badRequest(`The partition key path ${pk} cannot be patched.`);
  }
}

/** Applies the operations to a deep copy of `doc` and returns it. */
export function applyPatch(doc: JsonObject, spec: PatchSpec, pkPaths: readonly string[]): JsonObject {
  const out = structuredClone(doc);
  for (const operation of spec.operations) {
    guard(operation.path, pkPaths);
    if (operation.from !== undefined) guard(operation.from, pkPaths);
    applyOne(out, operation);
  }
  return out;
}

function applyOne(root: JsonObject, o: PatchOperation): void {
  const { parent, key } = locate(root, o.path);
  const value = o.value as JsonValue;
  switch (o.op) {
    case 'add':
      if (Array.isArray(parent)) parent.splice(arrayIndex(parent, key, o.path, true), 0, value);
      else parent[key] = value;
      return;
    case 'set':
      if (Array.isArray(parent)) {
        const i = arrayIndex(parent, key, o.path, true);
        if (i === parent.length) parent.push(value);
        else parent[i] = value;
      } else parent[key] = value;
      return;
    case 'replace':
      if (read(parent, key) === undefined) throw badRequest(`The patch path ${o.path} does not exist in the document.`);
      if (Array.isArray(parent)) parent[arrayIndex(parent, key, o.path, false)] = value;
      else parent[key] = value;
      return;
    case 'remove':
      removeAt(parent, key, o.path);
      return;
    case 'incr': {
      const current = read(parent, key);
      if (current !== undefined && typeof current !== 'number')
        throw badRequest(`The value at ${o.path} is not a number and cannot be incremented.`);
      const next = (current ?? 0) + (value as number);
      if (Array.isArray(parent)) parent[arrayIndex(parent, key, o.path, false)] = next;
      else parent[key] = next;
      return;
    }
    case 'move': {
      const from = o.from as string;
      if (o.path.startsWith(from + '/')) throw badRequest(`Cannot move ${from} into its own child ${o.path}.`);
      const source = locate(root, from);
      const moved = removeAt(source.parent, source.key, from);
      const target = locate(root, o.path);
      if (Array.isArray(target.parent)) target.parent.splice(arrayIndex(target.parent, target.key, o.path, true), 0, moved);
      else target.parent[target.key] = moved;
      return;
    }
  }
}

/** Throws 412 unless the condition (a `FROM c WHERE …` clause) holds for `doc`. */
export function checkCondition(doc: JsonObject, condition: string | undefined, matches: (sql: string, doc: JsonObject) => boolean): void {
  if (condition === undefined || condition.trim() === '') return;
  let ok: boolean;
  try {
    ok = matches(`SELECT * ${condition.trim()}`, doc);
  } catch (err) {
    if (err instanceof CosmosError) throw err;
    throw badRequest(`The patch condition could not be evaluated: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (!ok) throw preconditionFailed('The patch condition is not met by the current document.');
}
