import { ContainerState } from './container';
import { EmulatorContext } from './context';
import { badRequest, notFound, preconditionFailed } from './errors';
import { resourceFeed } from './feeds';
import { parseJsonBody } from './items';
import { DEFAULT_CONTAINER_THROUGHPUT, OfferState, ThroughputRequest, newOfferId, offerResource, replacedThroughput } from './offers';
import { newEtag } from './rid';
import { DatabaseState, nowSeconds } from './store';
import { EmulatorRequest, EmulatorResponse, isJsonObject } from './types';

/** `/offers` (feed and query), `/offers/<id>` (read, replace), and the offers creates make. */

function newOffer(ctx: EmulatorContext, db: DatabaseState, container: ContainerState | undefined, t: ThroughputRequest): OfferState {
  return {
    id: newOfferId((id) => ctx.store.offers.has(id)),
    databaseId: db.id,
    ...(container ? { containerId: container.id } : {}),
    resource: container ? `dbs/${db.rid}/colls/${container.rid}/` : `dbs/${db.rid}/`,
    resourceRid: container ? container.rid : db.rid,
    throughput: t.throughput,
    ...(t.autoscaleMaxThroughput !== undefined ? { autoscaleMaxThroughput: t.autoscaleMaxThroughput } : {}),
    ts: nowSeconds(),
    etag: newEtag(),
  };
}

export async function offerForNewDatabase(ctx: EmulatorContext, db: DatabaseState, t: ThroughputRequest | undefined): Promise<void> {
  if (t) await ctx.store.putOffer(newOffer(ctx, db, undefined, t));
}

/** A container gets what it asks for; without a request, dedicated 400 RU/s unless its database shares throughput. */
export async function offerForNewContainer(
  ctx: EmulatorContext,
  db: DatabaseState,
  c: ContainerState,
  t: ThroughputRequest | undefined,
): Promise<void> {
  if (!t && ctx.store.offerFor(db.id)) return;
  await ctx.store.putOffer(newOffer(ctx, db, c, t ?? { throughput: DEFAULT_CONTAINER_THROUGHPUT }));
}

export function listOffers(ctx: EmulatorContext, req: EmulatorRequest): EmulatorResponse {
  return resourceFeed(req, '', 'Offers', [...ctx.store.offers.values()].map(offerResource));
}

function offer(ctx: EmulatorContext, id: string): OfferState {
  const o = ctx.store.offers.get(id.toLowerCase());
  if (!o) throw notFound(`Offer ${id} does not exist.`);
  return o;
}

export function readOffer(ctx: EmulatorContext, id: string): EmulatorResponse {
  const o = offer(ctx, id);
  return { status: 200, headers: { etag: o.etag }, body: JSON.stringify(offerResource(o)) };
}

export async function replaceOffer(ctx: EmulatorContext, req: EmulatorRequest, id: string): Promise<EmulatorResponse> {
  const current = offer(ctx, id);
  const body = parseJsonBody(req);
  if (!isJsonObject(body)) throw badRequest('The request body must be a JSON object.');
  if (body.id !== undefined && String(body.id).toLowerCase() !== current.id)
    throw badRequest('The offer id in the body must match the address.');
  const ifMatch = req.headers['if-match'];
  if (ifMatch !== undefined && ifMatch !== '*' && ifMatch !== current.etag) throw preconditionFailed();
  const t = replacedThroughput(current, body);
  const next: OfferState = { ...current, throughput: t.throughput, ts: nowSeconds(), etag: newEtag() };
  if (t.autoscaleMaxThroughput !== undefined) next.autoscaleMaxThroughput = t.autoscaleMaxThroughput;
  await ctx.store.putOffer(next);
  return { status: 200, headers: { etag: next.etag }, body: JSON.stringify(offerResource(next)) };
}
