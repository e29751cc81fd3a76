import { executeBatch } from './batch';
import { assertSupportedFeedMode, isChangeFeedRequest, readChangeFeed } from './changefeed';
import { EmulatorContext } from './context';
import { RequestKind } from './counters';
import { methodNotAllowed, notFound } from './errors';
import { isQueryPlanRequest, isQueryRequest, partitionKeyRanges, queryDocuments, queryFromBody, queryPlan } from './feeds';
import { createOrUpsert, deleteAllForPartitionKey, deleteItem, patchItem, readItem, replaceItem } from './items';
import * as meta from './metadata';
import * as offers from './offer-handlers';
import { UserHandlers } from './user-handlers';
import { maxItemCount, resolveScope } from './scope';
import { EmulatorRequest, EmulatorResponse } from './types';

/**
 * Maps a request to its kind (for counters and fault filters) and its handler. Addresses:
 *   /                                   account
 *   /dbs[/<db>[/colls[/<c>]]]           databases, containers
 *   /dbs/<db>/colls/<c>/docs[/<id>]     items, queries, batches, read feed, change feed
 *   /dbs/<db>/colls/<c>/pkranges        partition key ranges
 *   /dbs/<db>/colls/<c>/operations/partitionkeydelete   delete a whole logical partition
 *   /offers[/<id>]                      provisioned throughput (offers.ts)
 *   /dbs/<db>/users[/<u>[/permissions[/<p>]]]   users, permissions (user-handlers.ts)
 */
export interface Route {
  kind: RequestKind;
  handle: () => EmulatorResponse | Promise<EmulatorResponse>;
}

const truthy = (v: string | undefined): boolean => v !== undefined && v.toLowerCase() === 'true';

export function route(ctx: EmulatorContext, req: EmulatorRequest): Route {
  const s = req.segments;
  const m = req.method;
  const unsupported = (): Route => ({ kind: 'metadata', handle: () => Promise.reject(methodNotAllowed(m, req.rawPath)) });
  const unknown = (): Route => ({ kind: 'metadata', handle: () => Promise.reject(notFound(`Unknown resource address ${req.rawPath}.`)) });
  const metadata = (handle: () => EmulatorResponse | Promise<EmulatorResponse>): Route => ({ kind: 'metadata', handle });

  if (s.length === 0) return m === 'GET' ? metadata(() => meta.readAccount(ctx)) : unsupported();
  if (s[0] === 'offers' && s.length === 1) return m === 'GET' || m === 'POST' ? metadata(() => offers.listOffers(ctx, req)) : unsupported();
  if (s[0] === 'offers' && s.length === 2) {
    if (m === 'GET') return metadata(() => offers.readOffer(ctx, s[1]));
    return m === 'PUT' ? metadata(() => offers.replaceOffer(ctx, req, s[1])) : unsupported();
  }
  if (s[0] !== 'dbs') return unknown();
  if (s.length === 1) {
    if (m === 'GET' || (m === 'POST' && isQueryRequest(req))) return metadata(() => meta.listDatabases(ctx, req));
    return m === 'POST' ? metadata(() => meta.createDatabase(ctx, req)) : unsupported();
  }
  const db = s[1];
  if (s.length === 2) {
    if (m === 'GET') return metadata(() => meta.readDatabase(ctx, db));
    return m === 'DELETE' ? metadata(() => meta.deleteDatabase(ctx, db)) : unsupported();
  }
  if (s[2] === 'users') return routeUsers(ctx, req);
  if (s[2] !== 'colls') return unknown();
  if (s.length === 3) {
    if (m === 'GET' || (m === 'POST' && isQueryRequest(req))) return metadata(() => meta.listContainers(ctx, req, db));
    return m === 'POST' ? metadata(() => meta.createContainer(ctx, req, db)) : unsupported();
  }
  const coll = s[3];
  if (s.length === 4) {
    if (m === 'GET') return metadata(() => meta.readContainer(ctx, db, coll));
    if (m === 'PUT') return metadata(() => meta.replaceContainer(ctx, req, db, coll));
    return m === 'DELETE' ? metadata(() => meta.deleteContainer(ctx, db, coll)) : unsupported();
  }
  const container = () => ctx.store.container(db, coll);
  if (s[4] === 'pkranges' && s.length === 5) {
    return m === 'GET' || m === 'POST' ? { kind: 'pkranges', handle: () => partitionKeyRanges(container()) } : unsupported();
  }
  if (s[4] === 'operations' && s[5] === 'partitionkeydelete' && s.length === 6) {
    return m === 'POST' ? { kind: 'write', handle: () => deleteAllForPartitionKey(ctx.store, container(), req) } : unsupported();
  }
  if (s[4] !== 'docs') return unknown();
  if (s.length === 5) return routeDocsFeed(ctx, req, container);
  if (s.length !== 6) return unknown();
  const id = s[5];
  switch (m) {
    case 'GET':
      return { kind: 'pointRead', handle: () => readItem(container(), req, id) };
    case 'PUT':
      return { kind: 'write', handle: () => replaceItem(ctx.store, container(), req, id) };
    case 'DELETE':
      return { kind: 'write', handle: () => deleteItem(ctx.store, container(), req, id) };
    case 'PATCH':
      return { kind: 'write', handle: () => patchItem(ctx.store, container(), req, id) };
    default:
      return unsupported();
  }
}

function routeDocsFeed(
  ctx: EmulatorContext,
  req: EmulatorRequest,
  container: () => ReturnType<EmulatorContext['store']['container']>,
): Route {
  if (req.method === 'GET') {
    if (isChangeFeedRequest(req)) {
      return {
        kind: 'changeFeed',
        handle: () => {
          const c = container();
          return readChangeFeed(c, req, resolveScope(c, req), maxItemCount(req), req.receivedAt);
        },
      };
    }
    return {
      kind: 'readFeed',
      handle: () => {
        assertSupportedFeedMode(req);
        return queryDocuments(container(), req);
      },
    };
  }
  if (req.method !== 'POST') return { kind: 'write', handle: () => Promise.reject(methodNotAllowed(req.method, req.rawPath)) };
  if (isQueryPlanRequest(req)) {
    return {
      kind: 'queryPlan',
      handle: () => {
        container(); // 404 for a missing container, as the real plan request would
        return queryPlan(req);
      },
    };
  }
  if (truthy(req.headers['x-ms-cosmos-is-batch-request']))
    return { kind: 'batch', handle: () => executeBatch(ctx.store, container(), req) };
  if (isQueryRequest(req)) return { kind: 'query', handle: () => queryFromBody(container(), req) };
  return { kind: 'write', handle: () => createOrUpsert(ctx.store, container(), req) };
}

function routeUsers(ctx: EmulatorContext, req: EmulatorRequest): Route {
  const s = req.segments;
  const m = req.method;
  const h = new UserHandlers(ctx);
  const metadata = (handle: () => EmulatorResponse | Promise<EmulatorResponse>): Route => ({ kind: 'metadata', handle });
  const refuse = (): Route => metadata(() => Promise.reject(methodNotAllowed(m, req.rawPath)));
  const [db, user, perm] = [s[1], s[3], s[5]];
  const feed = (list: () => EmulatorResponse, create: () => Promise<EmulatorResponse>): Route => {
    if (m === 'GET' || (m === 'POST' && isQueryRequest(req))) return metadata(list);
    return m === 'POST' ? metadata(create) : refuse();
  };
  const one = (read: () => EmulatorResponse, replace: () => Promise<EmulatorResponse>, remove: () => Promise<EmulatorResponse>): Route => {
    if (m === 'GET') return metadata(read);
    if (m === 'PUT') return metadata(replace);
    return m === 'DELETE' ? metadata(remove) : refuse();
  };
  switch (s.length) {
    case 3:
      return feed(
        () => h.listUsers(req, db),
        () => h.createUser(req, db),
      );
    case 4:
      return one(
        () => h.readUser(db, user),
        () => h.replaceUser(req, db, user),
        () => h.deleteUser(db, user),
      );
    case 5:
      if (s[4] !== 'permissions') break;
      return feed(
        () => h.listPermissions(req, db, user),
        () => h.createPermission(req, db, user),
      );
    case 6:
      if (s[4] !== 'permissions') break;
      return one(
        () => h.readPermission(req, db, user, perm),
        () => h.replacePermission(req, db, user, perm),
        () => h.deletePermission(db, user, perm),
      );
  }
  return metadata(() => Promise.reject(notFound(`Unknown resource address ${req.rawPath}.`)));
}
