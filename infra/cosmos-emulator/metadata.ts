import { ContainerMeta, ContainerState, DEFAULT_INDEXING_POLICY, PartitionKeyDefinition } from './container';
import { EmulatorContext } from './context';
import { badRequest, preconditionFailed } from './errors';
import { resourceFeed } from './feeds';
import { parseJsonBody } from './items';
import { accountResource, containerResource, databaseResource } from './resources';
import { newContainerRid, newEtag } from './rid';
import { nowSeconds } from './store';
import { validateDefaultTtl } from './ttl';
import { normaliseIndexingPolicy } from './indexing-policy';
import { offerForNewContainer, offerForNewDatabase } from './offer-handlers';
import { partitionsFor, requestedThroughput } from './offers';
import { EmulatorRequest, EmulatorResponse, JsonObject, isJsonObject } from './types';
import { validateId } from './write-ops';

/** The account, databases and containers. */
const ok = (status: number, resource: JsonObject, extra: Record<string, string> = {}): EmulatorResponse => ({
  status,
  headers: { etag: String(resource._etag ?? ''), ...extra },
  body: JSON.stringify(resource),
});

export function readAccount(ctx: EmulatorContext): EmulatorResponse {
  return { status: 200, headers: {}, body: JSON.stringify(accountResource(ctx.account)) };
}

function bodyObject(req: EmulatorRequest): JsonObject {
  const body = parseJsonBody(req);
  if (!isJsonObject(body)) throw badRequest('The request body must be a JSON object.');
  return body;
}

function resourceId(value: unknown, what: string): string {
  try {
    return validateId(value, 'resource');
  } catch {
    throw badRequest(`The ${what} id ${JSON.stringify(value)} is invalid: a non-empty string without '/', '\\', '?' or '#'.`);
  }
}

export async function createDatabase(ctx: EmulatorContext, req: EmulatorRequest): Promise<EmulatorResponse> {
  const id = resourceId(bodyObject(req).id, 'database');
  const throughput = requestedThroughput(req.headers);
  const db = await ctx.store.createDatabase(id);
  await offerForNewDatabase(ctx, db, throughput);
  return ok(201, databaseResource(db));
}

export function listDatabases(ctx: EmulatorContext, req: EmulatorRequest): EmulatorResponse {
  return resourceFeed(req, '', 'Databases', [...ctx.store.databases.values()].map(databaseResource));
}

export function readDatabase(ctx: EmulatorContext, id: string): EmulatorResponse {
  return ok(200, databaseResource(ctx.store.database(id)));
}

export async function deleteDatabase(ctx: EmulatorContext, id: string): Promise<EmulatorResponse> {
  await ctx.store.deleteDatabase(id);
  return { status: 204, headers: {} };
}

/**
 * Where a partition key path stops being valid (-1: valid). A path is `/segment[/segment…]`; a segment
 * is a name of letters, digits, `_`, `$` or `-`, or a double-quoted string without `"` or `/`.
 */
export function invalidPathPosition(path: string): number {
  const segment = /\/(?:[\p{L}\p{N}_$-]+|"[^"/]*")/uy;
  let at = 0;
  if (path.length === 0) return 0;
  while (at < path.length) {
    segment.lastIndex = at;
    if (!segment.test(path)) return path[at] === '/' ? at + 1 : at;
    at = segment.lastIndex;
  }
  return -1;
}

/** Hierarchical keys have at most three levels, as on the service. */
const MAX_HIERARCHY = 3;

function partitionKeyDefinition(value: unknown): PartitionKeyDefinition {
  if (value === undefined || value === null) return { paths: ['/_partitionKey'], kind: 'Hash', version: 1, versionOmitted: true };
  const kind = isJsonObject(value) ? (value.kind ?? 'Hash') : undefined;
  if (kind !== 'Hash' && kind !== 'MultiHash')
    throw badRequest(`Partition key kind ${String(kind)} is not supported; use Hash or MultiHash.`);
  const max = kind === 'MultiHash' ? MAX_HIERARCHY : 1;
  const paths = isJsonObject(value) ? value.paths : undefined;
  if (!Array.isArray(paths) || paths.length < 1 || paths.length > max || paths.some((p) => typeof p !== 'string')) {
    throw badRequest(
      kind === 'MultiHash'
        ? `A hierarchical partition key (kind MultiHash) needs 1 to ${MAX_HIERARCHY} paths: {paths: ["/a", "/b"], kind: "MultiHash", version: 2}.`
        : 'partitionKey must be {paths: ["/path"]} with exactly one path; several paths need kind MultiHash (hierarchical keys).',
    );
  }
  for (const path of paths as string[]) {
    const bad = invalidPathPosition(path);
    if (bad >= 0) {
      throw badRequest(
        `The partition key component definition path '${path}' could not be accepted, failed near position '${bad}'. Partition key paths must contain only valid characters and not contain a trailing slash or wildcard character.`,
      );
    }
  }
  const version = isJsonObject(value) ? value.version : undefined;
  if (kind === 'MultiHash' && version !== undefined && version !== 2) {
    throw badRequest('A hierarchical partition key (kind MultiHash) must use hash version 2.');
  }
  if (version !== undefined && version !== 1 && version !== 2)
    throw badRequest(`Partition key version ${JSON.stringify(version)} is not valid; use 1 or 2.`);
  const copied = [...(paths as string[])];
  // Hierarchical keys exist only with hash v2; a Hash key without a version is the service's legacy v1.
  if (kind === 'MultiHash') return { paths: copied, kind, version: 2 };
  if (version === undefined) return { paths: copied, kind, version: 1, versionOmitted: true };
  return { paths: copied, kind, version };
}

const KNOWN = [
  'id',
  'partitionKey',
  'defaultTtl',
  'indexingPolicy',
  '_rid',
  '_ts',
  '_self',
  '_etag',
  '_docs',
  '_sprocs',
  '_triggers',
  '_udfs',
  '_conflicts',
];

function extraProperties(body: JsonObject): JsonObject {
  const extra: JsonObject = {};
  for (const [k, v] of Object.entries(body)) if (!KNOWN.includes(k)) extra[k] = v;
  return extra;
}

export async function createContainer(ctx: EmulatorContext, req: EmulatorRequest, databaseId: string): Promise<EmulatorResponse> {
  const db = ctx.store.database(databaseId);
  const body = bodyObject(req);
  const id = resourceId(body.id, 'container');
  const partitionKey = partitionKeyDefinition(body.partitionKey);
  const throughput = requestedThroughput(req.headers);
  const meta: ContainerMeta = {
    id,
    rid: newContainerRid(db.rid),
    ts: nowSeconds(),
    etag: newEtag(),
    partitionKey,
    defaultTtl: validateDefaultTtl(body.defaultTtl),
    indexingPolicy: normaliseIndexingPolicy(body.indexingPolicy ?? DEFAULT_INDEXING_POLICY),
    extra: extraProperties(body),
    // with throughput named, as many ranges as the service would make for it; else the configured count
    ...ContainerState.initialRanges(throughput ? partitionsFor(throughput) : ctx.partitions, partitionKey.version),
    lsn: 0,
    docSeq: 0,
  };
  const created = await ctx.store.createContainer(databaseId, meta);
  await offerForNewContainer(ctx, db, created, throughput);
  return ok(201, containerResource(created));
}

export function listContainers(ctx: EmulatorContext, req: EmulatorRequest, databaseId: string): EmulatorResponse {
  const db = ctx.store.database(databaseId);
  return resourceFeed(req, db.rid, 'DocumentCollections', [...db.containers.values()].map(containerResource));
}

/**
 * A container read also says how far a change of its indexing policy has got: the emulator applies a
 * policy at once (it keeps no index), so the transformation is always complete.
 */
export function readContainer(ctx: EmulatorContext, databaseId: string, id: string): EmulatorResponse {
  return ok(200, containerResource(ctx.store.container(databaseId, id)), { [INDEX_TRANSFORMATION_PROGRESS]: '100' });
}

export const INDEX_TRANSFORMATION_PROGRESS = 'x-ms-documentdb-collection-index-transformation-progress';

export async function replaceContainer(
  ctx: EmulatorContext,
  req: EmulatorRequest,
  databaseId: string,
  id: string,
): Promise<EmulatorResponse> {
  const current = ctx.store.container(databaseId, id);
  const body = bodyObject(req);
  if (body.id !== undefined && body.id !== id)
    throw badRequest(`The container id in the body (${JSON.stringify(body.id)}) must match the address (${id}).`);
  if (body.partitionKey !== undefined) {
    const pk = partitionKeyDefinition(body.partitionKey);
    // A body without a version leaves it as it is (clients echo what they read, and v1 reads name none).
    const sameVersion = pk.versionOmitted === true || pk.version === current.meta.partitionKey.version;
    const same =
      sameVersion && pk.kind === current.meta.partitionKey.kind && pk.paths.join('\n') === current.meta.partitionKey.paths.join('\n');
    if (!same) throw badRequest('The partition key of a container cannot be changed.');
  }
  const ifMatch = req.headers['if-match'];
  if (ifMatch !== undefined && ifMatch !== '*' && ifMatch !== current.meta.etag) {
    throw preconditionFailed('The container was changed since it was read (If-Match does not match its etag).');
  }
  const replaced = await ctx.store.replaceContainer(databaseId, id, {
    defaultTtl: validateDefaultTtl(body.defaultTtl),
    indexingPolicy: body.indexingPolicy === undefined ? current.meta.indexingPolicy : normaliseIndexingPolicy(body.indexingPolicy),
    extra: extraProperties(body),
  });
  return ok(200, containerResource(replaced));
}

export async function deleteContainer(ctx: EmulatorContext, databaseId: string, id: string): Promise<EmulatorResponse> {
  await ctx.store.deleteContainer(databaseId, id);
  return { status: 204, headers: {} };
}
