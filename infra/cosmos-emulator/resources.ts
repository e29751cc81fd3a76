import { ContainerState, PartitionKeyDefinition } from './container';
import { PartitionRange } from './partition-range';
import { DatabaseState } from './store';
import { JsonObject } from './types';

/** JSON renderings of databases, containers, partition key ranges and the account. */
export function databaseResource(db: DatabaseState): JsonObject {
  return {
    id: db.id,
    _rid: db.rid,
    _self: `dbs/${db.rid}/`,
    _etag: db.etag,
    _colls: 'colls/',
    _users: 'users/',
    _ts: db.ts,
  };
}

export function containerResource(c: ContainerState): JsonObject {
  const m = c.meta;
  const out: JsonObject = {
    ...m.extra,
    id: m.id,
    indexingPolicy: m.indexingPolicy,
    partitionKey: partitionKeyResource(m.partitionKey),
  };
  if (m.defaultTtl !== undefined) out.defaultTtl = m.defaultTtl;
  if (out.uniqueKeyPolicy === undefined) out.uniqueKeyPolicy = { uniqueKeys: [] };
  if (out.conflictResolutionPolicy === undefined) {
    out.conflictResolutionPolicy = { mode: 'LastWriterWins', conflictResolutionPath: '/_ts', conflictResolutionProcedure: '' };
  }
  if (out.geospatialConfig === undefined) out.geospatialConfig = { type: 'Geography' };
  return {
    ...out,
    _rid: m.rid,
    _ts: m.ts,
    _self: `dbs/${c.databaseRid}/colls/${m.rid}/`,
    _etag: m.etag,
    _docs: 'docs/',
    _sprocs: 'sprocs/',
    _triggers: 'triggers/',
    _udfs: 'udfs/',
    _conflicts: 'conflicts/',
  };
}

/** A container created without a version reads back without one, as the service answers for hash v1. */
function partitionKeyResource(pk: PartitionKeyDefinition): JsonObject {
  const out: JsonObject = { paths: [...pk.paths], kind: pk.kind };
  if (!pk.versionOmitted) out.version = pk.version;
  return out;
}

export function partitionKeyRangeResource(c: ContainerState, r: PartitionRange): JsonObject {
  const live = c.liveRanges().length;
  return {
    _rid: `${c.rid}${r.id}`,
    id: r.id,
    _etag: `"${c.rid}-${r.id}"`,
    minInclusive: r.min,
    maxExclusive: r.max,
    ridPrefix: Number(r.id),
    _self: `dbs/${c.databaseRid}/colls/${c.rid}/pkranges/${r.id}/`,
    throughputFraction: 1 / live,
    status: 'online',
    parents: [...r.parents],
    ownedArchivalPKRangeIds: [],
    _ts: c.meta.ts,
    _lsn: c.lsn,
  };
}

export interface AccountInfo {
  id: string;
  rid: string;
  endpoint: string;
  /** Advertised as the write and read location (a regional host on a real account). */
  locationEndpoint: string;
}

export function accountResource(a: AccountInfo): JsonObject {
  const location = { name: 'Emulator', databaseAccountEndpoint: a.locationEndpoint || a.endpoint };
  return {
    _self: '',
    id: a.id,
    _rid: a.rid,
    media: '//media/',
    addresses: '//addresses/',
    _dbs: '//dbs/',
    writableLocations: [location],
    readableLocations: [location],
    enableMultipleWriteLocations: false,
    userReplicationPolicy: { asyncReplication: false, minReplicaSetSize: 1, maxReplicasetSize: 4 },
    userConsistencyPolicy: { defaultConsistencyLevel: 'Session' },
    systemReplicationPolicy: { minReplicaSetSize: 1, maxReplicasetSize: 4 },
    readPolicy: { primaryReadCoefficient: 1, secondaryReadCoefficient: 1 },
  };
}
