import { ContainerState } from './container';
import { CosmosError, badRequest, errorBody } from './errors';
import { parsePatchSpec } from './patch';
import { LOOKUP_RU, readUnits, writeUnits } from './request-charge';
import { indexedTermCount } from './indexed-terms';
import { docHeaders, jsonResponse } from './respond';
import { requirePartitionKey } from './scope';
import { Store } from './store';
import { EmulatorRequest, EmulatorResponse, JsonObject, isJsonObject } from './types';
import { Execution, ItemOperation, MAX_NESTING_DEPTH, executeOperations, nestingDepth } from './write-ops';

/** Point operations on one document: create/upsert (POST), read (GET), replace (PUT), delete, patch. */
export function parseJsonBody(req: EmulatorRequest): unknown {
  if (req.body.length === 0) throw badRequest('The request body is empty; a JSON body is required.');
  let body: unknown;
  try {
    body = JSON.parse(req.body.toString('utf8'));
  } catch (err) {
    throw badRequest(`The request body is not valid JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
  // Items are limited to 128 levels (checked per item); no request needs more than a few levels around them,
  // and nothing deeper may reach code that recurses.
  if (nestingDepth(body, MAX_NESTING_DEPTH + 4) > MAX_NESTING_DEPTH + 4) {
    throw badRequest(`The request body nests objects or arrays deeper than ${MAX_NESTING_DEPTH} levels.`);
  }
  return body;
}

function parseDocument(req: EmulatorRequest): JsonObject {
  const body = parseJsonBody(req);
  if (!isJsonObject(body)) throw badRequest('The request body must be a JSON object.');
  return body;
}

function truthy(value: string | undefined): boolean {
  return value !== undefined && value.toLowerCase() === 'true';
}

/** Runs one operation; the answer carries the document, its etag and the session token. */
async function runSingle(store: Store, container: ContainerState, req: EmulatorRequest, op: ItemOperation): Promise<EmulatorResponse> {
  const pk = requirePartitionKey(container, req);
  const execution: Execution = executeOperations(container, pk, [op], req.receivedAt);
  const result = execution.results[0];
  if (execution.failed)
    throw new CosmosError(result.status, codeFor(result.status), result.message ?? 'The operation failed.', result.substatus);
  if (execution.mutation) await store.commitWrite(container, execution.mutation);
  const lsn = execution.mutation?.lsn ?? container.lsn;
  const headers = docHeaders(container, pk.epk, lsn, result.doc);
  return { ...jsonResponse(result.status, result.doc ? result.doc.json : undefined, headers), charge: result.charge };
}

export function codeFor(status: number): string {
  switch (status) {
    case 400:
      return 'BadRequest';
    case 404:
      return 'NotFound';
    case 409:
      return 'Conflict';
    case 412:
      return 'PreconditionFailed';
    case 413:
      return 'RequestEntityTooLarge';
    case 424:
      return 'FailedDependency';
    default:
      return 'Error';
  }
}

export function createOrUpsert(store: Store, container: ContainerState, req: EmulatorRequest): Promise<EmulatorResponse> {
  const upsert = truthy(req.headers['x-ms-documentdb-is-upsert']);
  return runSingle(store, container, req, {
    type: upsert ? 'Upsert' : 'Create',
    body: parseDocument(req),
    ifMatch: req.headers['if-match'],
  });
}

export function readItem(container: ContainerState, req: EmulatorRequest, id: string): EmulatorResponse {
  const pk = requirePartitionKey(container, req);
  const doc = container.find(pk.text, pk.epk, id, req.receivedAt);
  if (!doc) {
    const err = new CosmosError(404, 'NotFound', 'Entity with the specified id does not exist in the system.');
    return { ...jsonResponse(404, errorBody(err), docHeaders(container, pk.epk, container.lsn)), charge: LOOKUP_RU };
  }
  const headers = docHeaders(container, pk.epk, container.lsn, doc);
  const charge = readUnits(Buffer.byteLength(doc.json));
  const inm = req.headers['if-none-match'];
  if (inm !== undefined && inm === doc.body._etag) return { status: 304, headers, charge };
  return { ...jsonResponse(200, doc.json, headers), charge };
}

export function replaceItem(store: Store, container: ContainerState, req: EmulatorRequest, id: string): Promise<EmulatorResponse> {
  return runSingle(store, container, req, { type: 'Replace', id, body: parseDocument(req), ifMatch: req.headers['if-match'] });
}

export function deleteItem(store: Store, container: ContainerState, req: EmulatorRequest, id: string): Promise<EmulatorResponse> {
  return runSingle(store, container, req, { type: 'Delete', id, ifMatch: req.headers['if-match'] });
}

export function patchItem(store: Store, container: ContainerState, req: EmulatorRequest, id: string): Promise<EmulatorResponse> {
  return runSingle(store, container, req, {
    type: 'Patch',
    id,
    patch: parsePatchSpec(parseJsonBody(req)),
    ifMatch: req.headers['if-match'],
  });
}

/**
 * `POST …/colls/<c>/operations/partitionkeydelete` (the SDK's `deleteAllItemsForPartitionKey`): every
 * document of the logical partition named by the header goes, under one LSN (the service deletes in the
 * background; here it is done when the answer comes).
 */
export async function deleteAllForPartitionKey(store: Store, container: ContainerState, req: EmulatorRequest): Promise<EmulatorResponse> {
  const pk = requirePartitionKey(container, req);
  const docs = container.docsInScope({ pkText: pk.text, epk: pk.epk }, req.receivedAt);
  const deletes = docs.map((d) => ({ key: d.key, epk: d.epk }));
  const lsn = container.lsn + 1;
  if (deletes.length > 0) await store.commitWrite(container, { lsn, docSeq: container.docSeq, puts: [], deletes });
  // charged as the deletes it makes (the service charges them in the background)
  const charge = docs.reduce(
    (ru, d) => ru + writeUnits('delete', Buffer.byteLength(d.json), indexedTermCount(d.body, container.meta.indexingPolicy)),
    LOOKUP_RU,
  );
  return { ...jsonResponse(200, undefined, docHeaders(container, pk.epk, container.lsn)), charge };
}
