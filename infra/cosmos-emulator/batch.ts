import { ContainerState } from './container';
import { badRequest } from './errors';
import { epkInRange } from './partitioning';
import { parsePatchSpec } from './patch';
import { roundCharge } from './request-charge';
import { containerHeaders, jsonResponse, sessionToken } from './respond';
import { rangeIdHeader, requirePartitionKey, resolvePartitionKey } from './scope';
import { Store } from './store';
import { EmulatorRequest, EmulatorResponse, JsonObject, isJsonObject } from './types';
import { parseJsonBody } from './items';
import { ItemOperation, OperationResult, OperationType, ResolvedPartitionKey, executeOperations } from './write-ops';

/**
 * `x-ms-cosmos-is-batch-request: true` on POST …/docs. Atomic (transactional batch, one partition key
 * from the header): all operations commit under one LSN or none do (failed operation's status, 424 for
 * the others, HTTP 207). Non-atomic (the SDK's bulk, one range id): every operation on its own.
 */
const TYPES: readonly string[] = ['Create', 'Upsert', 'Replace', 'Delete', 'Read', 'Patch'];
const MAX_OPERATIONS = 100;

interface WireOperation {
  op: ItemOperation;
  partitionKey?: string;
}

function parseOperations(req: EmulatorRequest): WireOperation[] {
  const body = parseJsonBody(req);
  if (!Array.isArray(body) || body.length === 0) throw badRequest('A batch request body must be a non-empty JSON array of operations.');
  if (body.length > MAX_OPERATIONS) throw badRequest(`A batch supports at most ${MAX_OPERATIONS} operations.`);
  return body.map((raw: unknown, i: number): WireOperation => {
    if (!isJsonObject(raw)) throw badRequest(`Batch operation ${i} must be an object.`);
    const type = raw.operationType;
    if (typeof type !== 'string' || !TYPES.includes(type))
      throw badRequest(`Batch operation ${i} has an unknown operationType ${JSON.stringify(type)}.`);
    const op: ItemOperation = { type: type as OperationType };
    if (typeof raw.id === 'string') op.id = raw.id;
    if (typeof raw.ifMatch === 'string') op.ifMatch = raw.ifMatch;
    if (type === 'Patch') op.patch = parsePatchSpec(raw.resourceBody);
    else if (raw.resourceBody !== undefined) {
      if (!isJsonObject(raw.resourceBody)) throw badRequest(`Batch operation ${i}: resourceBody must be a JSON object.`);
      op.body = raw.resourceBody;
    }
    if ((type === 'Create' || type === 'Upsert' || type === 'Replace') && !op.body)
      throw badRequest(`Batch operation ${i} (${type}) needs a resourceBody.`);
    if (type === 'Replace' && op.id === undefined && op.body) op.id = String(op.body.id);
    return { op, partitionKey: typeof raw.partitionKey === 'string' ? raw.partitionKey : undefined };
  });
}

/** `Prefer: return=minimal` (the SDK's `contentResponseOnWriteEnabled: false`): writes answer without their body. */
function returnMinimal(req: EmulatorRequest): boolean {
  return (req.headers['prefer'] ?? '')
    .toLowerCase()
    .split(/[;,]/)
    .some((p) => p.trim() === 'return=minimal');
}

function wireResult(r: OperationResult, type: OperationType, minimal: boolean): JsonObject {
  const out: JsonObject = { statusCode: r.status, requestCharge: roundCharge(r.charge) };
  if (r.substatus !== undefined) out.subStatusCode = r.substatus;
  if (r.doc) {
    out.eTag = String(r.doc.body._etag);
    if (!minimal || type === 'Read') out.resourceBody = r.doc.body;
  }
  if (r.message !== undefined && r.status >= 400) out.message = r.message;
  return out;
}

export async function executeBatch(store: Store, container: ContainerState, req: EmulatorRequest): Promise<EmulatorResponse> {
  const atomic = (req.headers['x-ms-cosmos-batch-atomic'] ?? 'true').toLowerCase() === 'true';
  const ops = parseOperations(req);
  if (atomic) return executeAtomic(store, container, req, ops);
  return executeBulk(store, container, req, ops);
}

async function executeAtomic(
  store: Store,
  container: ContainerState,
  req: EmulatorRequest,
  ops: WireOperation[],
): Promise<EmulatorResponse> {
  const pk = requirePartitionKey(container, req);
  for (const [i, w] of ops.entries()) {
    if (w.partitionKey !== undefined && resolvePartitionKey(container, w.partitionKey).text !== pk.text) {
      // the service's words (clients match on them): the operation's key, then the batch's
      throw badRequest(
        `One or more operations within the batch request have a different partition key value than the request. Batch operation ${i} names ${w.partitionKey}, the request ${pk.text}.`,
      );
    }
  }
  const execution = executeOperations(
    container,
    pk,
    ops.map((w) => w.op),
    req.receivedAt,
  );
  if (execution.mutation) await store.commitWrite(container, execution.mutation);
  const lsn = execution.mutation?.lsn ?? container.lsn;
  const headers = { ...containerHeaders(container), 'x-ms-session-token': sessionToken(container.rangeForEpk(pk.epk).id, lsn) };
  const minimal = returnMinimal(req);
  const results = execution.results.map((r, i) => wireResult(r, ops[i].op.type, minimal));
  return { ...jsonResponse(execution.failed ? 207 : 200, JSON.stringify(results), headers), charge: totalCharge(execution.results) };
}

async function executeBulk(store: Store, container: ContainerState, req: EmulatorRequest, ops: WireOperation[]): Promise<EmulatorResponse> {
  const rangeId = rangeIdHeader(req);
  const range = rangeId !== undefined ? container.liveRange(rangeId) : undefined;
  const results: OperationResult[] = [];
  const commits: Promise<void>[] = [];
  // `x-ms-cosmos-batch-continue-on-error: false`: after the first failure the rest do not run (424).
  const stopOnError = (req.headers['x-ms-cosmos-batch-continue-on-error'] ?? 'true').toLowerCase() === 'false';
  for (const [i, w] of ops.entries()) {
    if (stopOnError && results.some((r) => r.status >= 400)) {
      results.push({ status: 424, message: 'The operation did not run because an earlier operation in the request failed.', charge: 0 });
      continue;
    }
    let pk: ResolvedPartitionKey;
    if (w.partitionKey !== undefined) pk = resolvePartitionKey(container, w.partitionKey);
    else if (req.headers['x-ms-documentdb-partitionkey'] !== undefined) pk = requirePartitionKey(container, req);
    else throw badRequest(`Bulk operation ${i} has no partitionKey.`);
    if (range && !epkInRange(pk.epk, range.min, range.max)) {
      results.push({ status: 410, substatus: 1002, message: `Partition key ${pk.text} is not in range ${range.id}.`, charge: 0 });
      continue;
    }
    const execution = executeOperations(container, pk, [w.op], req.receivedAt);
    if (execution.mutation) commits.push(store.commitWrite(container, execution.mutation));
    results.push(execution.results[0]);
  }
  await Promise.all(commits);
  const anyFailed = results.some((r) => r.status >= 400);
  const headers = { ...containerHeaders(container), 'x-ms-session-token': sessionToken(range?.id ?? '0', container.lsn) };
  const minimal = returnMinimal(req);
  return {
    ...jsonResponse(anyFailed ? 207 : 200, JSON.stringify(results.map((r, i) => wireResult(r, ops[i].op.type, minimal))), headers),
    charge: totalCharge(results),
  };
}

/** A batch costs what its operations cost (the service reports both). */
function totalCharge(results: readonly OperationResult[]): number {
  return results.reduce((ru, r) => ru + r.charge, 0);
}
