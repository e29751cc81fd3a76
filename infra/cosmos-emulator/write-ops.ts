import { ContainerState, Mutation } from './container';
import { CosmosError, badRequest, conflict, notFound, preconditionFailed, tooLarge } from './errors';
import { indexedTermCount } from './indexed-terms';
import { PatchSpec, applyPatch, checkCondition } from './patch';
import { queryMatches } from './query';
import { WriteKind, errorUnits, readUnits, writeUnits } from './request-charge';
import { documentRid, newEtag } from './rid';
import { StoredDoc, docKey } from './stored-doc';
import { validateItemTtl } from './ttl';
import { JsonObject, JsonValue, PkComponent, isJsonObject } from './types';

/**
 * The item write engine. A point write is a batch of one; a transactional batch runs its operations
 * against a staged view and commits all of them under a single LSN, or none (the failing operation
 * keeps its status, the others answer 424).
 */
export type OperationType = 'Create' | 'Upsert' | 'Replace' | 'Delete' | 'Read' | 'Patch';

export interface ItemOperation {
  type: OperationType;
  /** Required for Replace/Delete/Read/Patch; Create/Upsert take it from the body. */
  id?: string;
  body?: JsonObject;
  patch?: PatchSpec;
  ifMatch?: string;
}

export interface OperationResult {
  status: number;
  substatus?: number;
  message?: string;
  /** The document the operation produced or read (absent for deletes and failures). */
  doc?: StoredDoc;
  /** Request units the operation cost (request-charge.ts); 0 for one that never ran (424). */
  charge: number;
}

export interface ResolvedPartitionKey {
  components: PkComponent[];
  /** The logical partition (ids are unique within it); for hash v1 strings only their first 100 characters count. */
  text: string;
  /** The whole value as sent, which a document's own key must equal. */
  value: string;
  epk: string;
}

export interface Execution {
  results: OperationResult[];
  failed: boolean;
  /** Present when something was written. */
  mutation?: Mutation;
}

export const MAX_DOCUMENT_BYTES = 2 * 1024 * 1024;
/** The service's documented limit on nested objects/arrays in an item; deeper items are refused (400). */
export const MAX_NESTING_DEPTH = 128;

/** Depth of nested objects/arrays (the item itself is 1), walked without recursion; stops past `limit`. */
export function nestingDepth(value: unknown, limit: number): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop() as [unknown, number];
    if (v === null || typeof v !== 'object') continue;
    deepest = Math.max(deepest, depth);
    if (deepest > limit) return deepest;
    for (const child of Object.values(v as object)) if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
  }
  return deepest;
}
const SYSTEM_PROPERTIES = ['_rid', '_self', '_etag', '_attachments', '_ts', '_lsn'];
/** Item ids may hold '?' (the service and the SDK accept it); database and container ids may not. */
const ILLEGAL_ITEM_ID = /[/\\#]/;
const ILLEGAL_RESOURCE_ID = /[/\\?#]/;

export function validateId(id: unknown, what: 'item' | 'resource' = 'item'): string {
  if (typeof id !== 'string' || id.length === 0) throw badRequest('The document id must be a non-empty string.');
  if (id.length > 1023) throw badRequest('The document id must not exceed 1023 characters.');
  if ((what === 'item' ? ILLEGAL_ITEM_ID : ILLEGAL_RESOURCE_ID).test(id)) {
    throw badRequest(`The id ${JSON.stringify(id)} contains an illegal character ('/', '\\', '#'${what === 'item' ? '' : " or '?'"}).`);
  }
  return id;
}

/** The partition key value the document carries at the container's key path (`{}` when absent). */
export function extractPartitionKey(body: JsonObject, paths: readonly string[]): PkComponent[] {
  return paths.map((p) => {
    let node: JsonValue | undefined = body;
    for (const raw of p.slice(1).split('/')) {
      const seg = raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"') ? raw.slice(1, -1) : raw;
      node = isJsonObject(node) && Object.prototype.hasOwnProperty.call(node, seg) ? node[seg] : undefined;
    }
    if (node === undefined) return {};
    if (node === null || typeof node === 'string' || typeof node === 'number' || typeof node === 'boolean') return node;
    return {};
  });
}

export function executeOperations(
  container: ContainerState,
  pk: ResolvedPartitionKey,
  ops: readonly ItemOperation[],
  nowMs: number,
): Execution {
  const staged = new Map<string, StoredDoc | null>();
  const lsn = container.lsn + 1;
  let seq = container.docSeq;
  const lookup = (id: string): StoredDoc | undefined => {
    const key = docKey(pk.text, id);
    if (staged.has(key)) return staged.get(key) ?? undefined;
    return container.find(pk.text, pk.epk, id, nowMs);
  };
  const store = (id: string, userBody: JsonObject, existing: StoredDoc | undefined): StoredDoc => {
    let rid = existing && typeof existing.body._rid === 'string' ? existing.body._rid : undefined;
    if (!rid) rid = documentRid(container.rid, ++seq);
    const doc = buildDoc(container, pk, id, userBody, rid, lsn, nowMs);
    staged.set(doc.key, doc);
    return doc;
  };

  const results: OperationResult[] = [];
  let failedAt = -1;
  for (let i = 0; i < ops.length; i++) {
    try {
      results.push(runOne(ops[i], container, pk, lookup, store, (id) => staged.set(docKey(pk.text, id), null)));
    } catch (err) {
      if (!(err instanceof CosmosError)) throw err;
      results.push({ status: err.status, substatus: err.substatus, message: err.message, charge: errorUnits(err.status) });
      failedAt = i;
      break;
    }
  }
  if (failedAt >= 0) {
    const out = ops.map((_, i): OperationResult =>
      i === failedAt
        ? results[i]
        : { status: 424, message: 'The operation did not run because another operation in the batch failed.', charge: 0 },
    );
    return { results: out, failed: true };
  }
  if (staged.size === 0) return { results, failed: false };
  const puts: StoredDoc[] = [];
  const deletes: { key: string; epk: string }[] = [];
  for (const [key, doc] of staged) {
    if (doc) puts.push(doc);
    else deletes.push({ key, epk: pk.epk });
  }
  return { results, failed: false, mutation: { lsn, docSeq: seq, puts, deletes } };
}

function runOne(
  op: ItemOperation,
  container: ContainerState,
  pk: ResolvedPartitionKey,
  lookup: (id: string) => StoredDoc | undefined,
  store: (id: string, body: JsonObject, existing: StoredDoc | undefined) => StoredDoc,
  remove: (id: string) => void,
): OperationResult {
  const cost = (kind: WriteKind, doc: StoredDoc): number =>
    writeUnits(kind, Buffer.byteLength(doc.json), indexedTermCount(doc.body, container.meta.indexingPolicy));
  const checkEtag = (existing: StoredDoc): void => {
    if (op.ifMatch !== undefined && op.ifMatch !== '*' && op.ifMatch !== existing.body._etag) throw preconditionFailed();
  };
  switch (op.type) {
    case 'Create':
    case 'Upsert': {
      const body = checkBody(op.body, container, pk);
      const id = validateId(body.id);
      const existing = lookup(id);
      if (existing && op.type === 'Create') throw conflict();
      // As in Cosmos: an upsert's If-Match applies when the document exists (replace semantics); a missing
      // document is simply created.
      if (existing) checkEtag(existing);
      const doc = store(id, body, existing);
      return { status: existing ? 200 : 201, doc, charge: cost(existing ? 'replace' : 'insert', doc) };
    }
    case 'Replace': {
      const id = validateId(op.id);
      const body = checkBody(op.body, container, pk);
      if (body.id !== id) throw badRequest(`The id in the body (${JSON.stringify(body.id)}) must match the id in the address (${id}).`);
      const existing = lookup(id);
      if (!existing) throw notFound();
      checkEtag(existing);
      const doc = store(id, body, existing);
      return { status: 200, doc, charge: cost('replace', doc) };
    }
    case 'Delete': {
      const id = validateId(op.id);
      const existing = lookup(id);
      if (!existing) throw notFound();
      checkEtag(existing);
      remove(id);
      return { status: 204, charge: cost('delete', existing) };
    }
    case 'Read': {
      const id = validateId(op.id);
      const existing = lookup(id);
      if (!existing) throw notFound();
      return { status: 200, doc: existing, charge: readUnits(Buffer.byteLength(existing.json)) };
    }
    case 'Patch': {
      const id = validateId(op.id);
      if (!op.patch) throw badRequest('A patch operation needs its operations.');
      const existing = lookup(id);
      if (!existing) throw notFound();
      checkEtag(existing);
      checkCondition(existing.body, op.patch.condition, queryMatches);
      const patched = applyPatch(existing.body, op.patch, container.meta.partitionKey.paths);
      validateItemTtl(patched.ttl);
      const doc = store(id, patched, existing);
      return { status: 200, doc, charge: cost('replace', doc) };
    }
  }
}

function checkBody(body: JsonObject | undefined, container: ContainerState, pk: ResolvedPartitionKey): JsonObject {
  if (!body) throw badRequest('The request body must be a JSON document.');
  const fromBody = extractPartitionKey(body, container.meta.partitionKey.paths);
  if (JSON.stringify(fromBody) !== pk.value) {
    throw badRequest(
      `PartitionKey extracted from document (${JSON.stringify(fromBody)}) doesn't match the one specified in the header (${pk.value}).`,
    );
  }
  validateItemTtl(body.ttl);
  return body;
}

function buildDoc(
  container: ContainerState,
  pk: ResolvedPartitionKey,
  id: string,
  userBody: JsonObject,
  rid: string,
  lsn: number,
  nowMs: number,
): StoredDoc {
  if (nestingDepth(userBody, MAX_NESTING_DEPTH) > MAX_NESTING_DEPTH) {
    throw badRequest(`The document nests objects or arrays deeper than ${MAX_NESTING_DEPTH} levels.`);
  }
  const body: JsonObject = {};
  for (const [k, v] of Object.entries(userBody)) {
    if (SYSTEM_PROPERTIES.includes(k)) continue;
    // a "__proto__" property is data, never the object's prototype
    if (k === '__proto__') Object.defineProperty(body, k, { value: v, enumerable: true, writable: true, configurable: true });
    else body[k] = v;
  }
  body.id = id;
  body._rid = rid;
  body._self = `dbs/${container.databaseRid}/colls/${container.rid}/docs/${rid}/`;
  body._etag = newEtag();
  body._attachments = 'attachments/';
  body._ts = Math.floor(nowMs / 1000);
  const json = JSON.stringify(body);
  if (Buffer.byteLength(json, 'utf8') > MAX_DOCUMENT_BYTES) throw tooLarge('The document exceeds the maximum size of 2 MB.');
  return {
    key: docKey(pk.text, id),
    id,
    pkText: pk.text,
    epk: pk.epk,
    body,
    json,
    lsn,
    writeMs: nowMs,
    ttl: typeof body.ttl === 'number' ? body.ttl : undefined,
  };
}
