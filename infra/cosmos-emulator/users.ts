import { JsonObject, JsonValue } from './types';

/**
 * Users and their permissions, as the service keeps them under a database: a permission grants `Read`
 * or `All` on a database, container or item (optionally one logical partition of a container) and
 * comes with a resource token (resource-tokens.ts) that a client can use instead of the master key.
 */
export type PermissionMode = 'Read' | 'All';

export interface PermissionState {
  id: string;
  rid: string;
  ts: number;
  etag: string;
  mode: PermissionMode;
  /** The mode as the request wrote it (`read`, `Read`, …), echoed back. */
  modeText: string;
  /** The resource link as given (name- or rid-based), echoed back. */
  resource: string;
  /** The same resource as names: `['dbs', db, 'colls', c(, 'docs', id)]`; what requests are checked against. */
  scope: string[];
  resourcePartitionKey?: JsonValue[];
}

export interface UserState {
  id: string;
  rid: string;
  ts: number;
  etag: string;
  permissions: PermissionState[];
}

export function userResource(dbRid: string, u: UserState): JsonObject {
  return { id: u.id, _rid: u.rid, _self: `dbs/${dbRid}/users/${u.rid}/`, _etag: u.etag, _permissions: 'permissions/', _ts: u.ts };
}

export function permissionResource(dbRid: string, u: UserState, p: PermissionState, token: string): JsonObject {
  const out: JsonObject = { id: p.id, permissionMode: p.modeText, resource: p.resource };
  if (p.resourcePartitionKey !== undefined) out.resourcePartitionKey = p.resourcePartitionKey;
  return { ...out, _rid: p.rid, _self: `dbs/${dbRid}/users/${u.rid}/permissions/${p.rid}/`, _etag: p.etag, _ts: p.ts, _token: token };
}
