import { randomInt } from 'node:crypto';
import { EmulatorContext } from './context';
import { badRequest, conflict, notFound, preconditionFailed } from './errors';
import { resourceFeed } from './feeds';
import { parseJsonBody } from './items';
import { DEFAULT_TOKEN_SECONDS, MAX_TOKEN_SECONDS, ResourceTokens } from './resource-tokens';
import { documentRid, newContainerRid, newEtag } from './rid';
import { DatabaseState, nowSeconds } from './store';
import { EmulatorRequest, EmulatorResponse, JsonObject, JsonValue, isJsonObject } from './types';
import { PermissionMode, PermissionState, UserState, permissionResource, userResource } from './users';
import { validateId } from './write-ops';

/** `/dbs/<db>/users[/<u>[/permissions[/<p>]]]`: create (and upsert), read, list, query, replace (renames too), delete. */

const ok = (status: number, resource: JsonObject): EmulatorResponse => ({
  status,
  headers: { etag: String(resource._etag ?? '') },
  body: JSON.stringify(resource),
});

function body(req: EmulatorRequest): JsonObject {
  const b = parseJsonBody(req);
  if (!isJsonObject(b)) throw badRequest('The request body must be a JSON object.');
  return b;
}

function resourceIdOf(value: unknown, what: string): string {
  try {
    return validateId(value, 'resource');
  } catch {
    throw badRequest(`The ${what} id ${JSON.stringify(value)} is invalid: a non-empty string without '/', '\\', '?' or '#'.`);
  }
}

const isUpsert = (req: EmulatorRequest): boolean => (req.headers['x-ms-documentdb-is-upsert'] ?? '').toLowerCase() === 'true';

function checkIfMatch(req: EmulatorRequest, etag: string): void {
  const ifMatch = req.headers['if-match'];
  if (ifMatch !== undefined && ifMatch !== '*' && ifMatch !== etag) throw preconditionFailed();
}

function user(db: DatabaseState, id: string): UserState {
  const u = db.users.get(id);
  if (!u) throw notFound(`User ${id} does not exist in database ${db.id}.`);
  return u;
}

export class UserHandlers {
  private readonly tokens: ResourceTokens;

  constructor(private readonly ctx: EmulatorContext) {
    this.tokens = ctx.resourceTokens;
  }

  listUsers(req: EmulatorRequest, dbId: string): EmulatorResponse {
    const db = this.ctx.store.database(dbId);
    return resourceFeed(
      req,
      db.rid,
      'Users',
      [...db.users.values()].map((u) => userResource(db.rid, u)),
    );
  }

  readUser(dbId: string, id: string): EmulatorResponse {
    const db = this.ctx.store.database(dbId);
    return ok(200, userResource(db.rid, user(db, id)));
  }

  async createUser(req: EmulatorRequest, dbId: string): Promise<EmulatorResponse> {
    const db = this.ctx.store.database(dbId);
    const id = resourceIdOf(body(req).id, 'user');
    const existing = db.users.get(id);
    if (existing && !isUpsert(req)) throw conflict(`User ${id} already exists.`);
    const next: UserState = existing
      ? { ...existing, ts: nowSeconds(), etag: newEtag() }
      : { id, rid: newContainerRid(db.rid), ts: nowSeconds(), etag: newEtag(), permissions: [] };
    await this.ctx.store.putUser(db.id, next);
    return ok(existing ? 200 : 201, userResource(db.rid, next));
  }

  async replaceUser(req: EmulatorRequest, dbId: string, id: string): Promise<EmulatorResponse> {
    const db = this.ctx.store.database(dbId);
    const current = user(db, id);
    checkIfMatch(req, current.etag);
    const newId = resourceIdOf(body(req).id, 'user');
    if (newId !== id && db.users.has(newId)) throw conflict(`User ${newId} already exists.`);
    const next: UserState = { ...current, id: newId, ts: nowSeconds(), etag: newEtag() };
    await this.ctx.store.putUser(db.id, next, id);
    return ok(200, userResource(db.rid, next));
  }

  async deleteUser(dbId: string, id: string): Promise<EmulatorResponse> {
    const db = this.ctx.store.database(dbId);
    user(db, id);
    await this.ctx.store.deleteUser(db.id, id);
    return { status: 204, headers: {} };
  }

  listPermissions(req: EmulatorRequest, dbId: string, userId: string): EmulatorResponse {
    const db = this.ctx.store.database(dbId);
    const u = user(db, userId);
    const validity = tokenValidity(req);
    return resourceFeed(
      req,
      u.rid,
      'Permissions',
      u.permissions.map((p) => this.permissionJson(db, u, p, req.receivedAt, validity)),
    );
  }

  readPermission(req: EmulatorRequest, dbId: string, userId: string, id: string): EmulatorResponse {
    const db = this.ctx.store.database(dbId);
    const u = user(db, userId);
    return ok(200, this.permissionJson(db, u, permission(u, id), req.receivedAt, tokenValidity(req)));
  }

  async createPermission(req: EmulatorRequest, dbId: string, userId: string): Promise<EmulatorResponse> {
    const db = this.ctx.store.database(dbId);
    const u = user(db, userId);
    const def = this.permissionDefinition(db, body(req));
    const existing = u.permissions.find((p) => p.id === def.id);
    if (existing && !isUpsert(req)) throw conflict(`Permission ${def.id} already exists.`);
    const p: PermissionState = {
      ...def,
      rid: existing?.rid ?? documentRid(u.rid, randomInt(1, 2 ** 47)),
      ts: nowSeconds(),
      etag: newEtag(),
    };
    const next: UserState = { ...u, permissions: [...u.permissions.filter((x) => x.id !== def.id), p] };
    await this.ctx.store.putUser(db.id, next);
    return ok(existing ? 200 : 201, this.permissionJson(db, next, p, req.receivedAt, tokenValidity(req)));
  }

  async replacePermission(req: EmulatorRequest, dbId: string, userId: string, id: string): Promise<EmulatorResponse> {
    const db = this.ctx.store.database(dbId);
    const u = user(db, userId);
    const current = permission(u, id);
    checkIfMatch(req, current.etag);
    const def = this.permissionDefinition(db, body(req));
    if (def.id !== id && u.permissions.some((p) => p.id === def.id)) throw conflict(`Permission ${def.id} already exists.`);
    const p: PermissionState = { ...def, rid: current.rid, ts: nowSeconds(), etag: newEtag() };
    const next: UserState = { ...u, permissions: u.permissions.map((x) => (x.id === id ? p : x)) };
    await this.ctx.store.putUser(db.id, next);
    return ok(200, this.permissionJson(db, next, p, req.receivedAt, tokenValidity(req)));
  }

  async deletePermission(dbId: string, userId: string, id: string): Promise<EmulatorResponse> {
    const db = this.ctx.store.database(dbId);
    const u = user(db, userId);
    permission(u, id);
    await this.ctx.store.putUser(db.id, { ...u, permissions: u.permissions.filter((p) => p.id !== id) });
    return { status: 204, headers: {} };
  }

  private permissionJson(db: DatabaseState, u: UserState, p: PermissionState, nowMs: number, validity: number): JsonObject {
    return permissionResource(db.rid, u, p, this.tokens.mint(db.rid, u, p, nowMs, validity));
  }

  /** Mode `Read` or `All` (any case, echoed as given), a resource in this database, optionally one logical partition. */
  private permissionDefinition(db: DatabaseState, b: JsonObject): Omit<PermissionState, 'rid' | 'ts' | 'etag'> {
    const id = resourceIdOf(b.id, 'permission');
    const modeText = typeof b.permissionMode === 'string' ? b.permissionMode : '';
    const mode = ({ read: 'Read', all: 'All' } as Record<string, PermissionMode | undefined>)[modeText.toLowerCase()];
    if (!mode) throw badRequest(`permissionMode ${JSON.stringify(b.permissionMode)} is not valid: Read or All.`);
    if (typeof b.resource !== 'string' || b.resource.length === 0)
      throw badRequest('A permission needs resource: the link of a database, container or item.');
    const scope = this.scopeOf(db, b.resource);
    const out: Omit<PermissionState, 'rid' | 'ts' | 'etag'> = { id, mode, modeText, resource: b.resource, scope };
    if (b.resourcePartitionKey !== undefined && b.resourcePartitionKey !== null) {
      if (scope.length < 4) throw badRequest('resourcePartitionKey needs a container or item resource.');
      out.resourcePartitionKey = Array.isArray(b.resourcePartitionKey) ? b.resourcePartitionKey : [b.resourcePartitionKey as JsonValue];
    }
    return out;
  }

  /** `dbs/<db>[/colls/<c>[/docs/<id>]]` by names or `_rid`s → names; the database and container must exist. */
  private scopeOf(db: DatabaseState, resource: string): string[] {
    const s = resource.replace(/^\/+|\/+$/g, '').split('/');
    const bad = (): never => {
      throw badRequest(`The permission resource ${resource} is not the link of a database, container or item of database ${db.id}.`);
    };
    if (s.length % 2 !== 0 || s.length > 6 || s[0] !== 'dbs' || (s[1] !== db.id && s[1] !== db.rid)) bad();
    const scope = ['dbs', db.id];
    if (s.length === 2) return scope;
    if (s[2] !== 'colls') bad();
    const c = db.containers.get(s[3]) ?? [...db.containers.values()].find((x) => x.rid === s[3]);
    if (!c) return bad();
    scope.push('colls', c.id);
    if (s.length === 4) return scope;
    if (s[4] !== 'docs') bad();
    // an item by its `_self` names the document's `_rid`: find its id (names are what requests carry)
    const byRid = c.docsInScope({}, Date.now()).find((d) => d.body._rid === s[5]);
    return [...scope, 'docs', byRid ? byRid.id : s[5]];
  }
}

function permission(u: UserState, id: string): PermissionState {
  const p = u.permissions.find((x) => x.id === id);
  if (!p) throw notFound(`Permission ${id} does not exist for user ${u.id}.`);
  return p;
}

function tokenValidity(req: EmulatorRequest): number {
  const raw = req.headers['x-ms-documentdb-expiry-seconds'];
  if (raw === undefined) return DEFAULT_TOKEN_SECONDS;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 10 || n > MAX_TOKEN_SECONDS)
    throw badRequest(`x-ms-documentdb-expiry-seconds must be an integer from 10 to ${MAX_TOKEN_SECONDS}.`);
  return n;
}
