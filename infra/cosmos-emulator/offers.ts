import { randomBytes } from 'node:crypto';
import { badRequest } from './errors';
import { JsonObject, isJsonObject } from './types';

/**
 * Provisioned throughput, as on a provisioned (not serverless) account like the official emulator: a
 * database or container created with `x-ms-offer-throughput` (manual) or
 * `x-ms-cosmos-offer-autopilot-settings` (autoscale) gets an offer; a container created without either
 * in a database without shared throughput gets the service's default, 400 RU/s manual. Throughput is
 * recorded and answered, never enforced (no 429 for exceeding it).
 */
export interface OfferState {
  /** Offer ids are short lower-case strings (the SDK signs offer links lower-cased). */
  id: string;
  databaseId: string;
  /** Absent: the database's (shared) offer. */
  containerId?: string;
  /** `_self` of the database or container the offer is for, and its `_rid`. */
  resource: string;
  resourceRid: string;
  /** Manual RU/s, or for autoscale the floor it scales down to (a tenth of the maximum). */
  throughput: number;
  autoscaleMaxThroughput?: number;
  ts: number;
  etag: string;
}

export const DEFAULT_CONTAINER_THROUGHPUT = 400;
/**
 * The physical partitions the service lays out for a new container: manual throughput gets one per
 * 6,000 RU/s, leaving each partition room to grow to its 10,000 RU/s limit without a split (18,000
 * RU/s → 3, 30,000 → 5); autoscale gets one per 10,000 RU/s of its maximum.
 */
const MANUAL_RU_PER_PARTITION = 6_000;
const AUTOSCALE_RU_PER_PARTITION = 10_000;
const MAX_PARTITIONS = 64;

export function partitionsFor(t: ThroughputRequest): number {
  const count =
    t.autoscaleMaxThroughput === undefined
      ? Math.ceil(t.throughput / MANUAL_RU_PER_PARTITION)
      : Math.ceil(t.autoscaleMaxThroughput / AUTOSCALE_RU_PER_PARTITION);
  return Math.min(MAX_PARTITIONS, Math.max(1, count));
}
const MIN_MANUAL = 400;
const MIN_AUTOSCALE_MAX = 1000;

export interface ThroughputRequest {
  throughput: number;
  autoscaleMaxThroughput?: number;
}

export function newOfferId(taken: (id: string) => boolean): string {
  for (;;) {
    const id = randomBytes(3).toString('base64url').toLowerCase().replace(/[-_]/g, 'x');
    if (!taken(id)) return id;
  }
}

function manual(value: number, what: string): number {
  if (!Number.isInteger(value) || value < MIN_MANUAL || value % 100 !== 0) {
    throw badRequest(`The offer throughput ${what} (${value}) is not valid: it must be a multiple of 100 of at least ${MIN_MANUAL} RU/s.`);
  }
  return value;
}

function autoscaleMax(value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < MIN_AUTOSCALE_MAX || value % 1000 !== 0) {
    throw badRequest(
      `The autoscale maximum throughput (${String(value)}) is not valid: it must be a multiple of 1000 of at least ${MIN_AUTOSCALE_MAX} RU/s.`,
    );
  }
  return value;
}

/** What a create request asks for through its headers; undefined when it names no throughput. */
export function requestedThroughput(headers: Record<string, string>): ThroughputRequest | undefined {
  const fixed = headers['x-ms-offer-throughput'];
  const auto = headers['x-ms-cosmos-offer-autopilot-settings'];
  if (fixed !== undefined && auto !== undefined) throw badRequest('A request may set manual throughput or autoscale settings, not both.');
  if (fixed !== undefined) return { throughput: manual(Number(fixed), 'x-ms-offer-throughput') };
  if (auto === undefined) return undefined;
  let settings: unknown;
  try {
    settings = JSON.parse(auto);
  } catch {
    throw badRequest('x-ms-cosmos-offer-autopilot-settings must be JSON: {"maxThroughput": <RU/s>}.');
  }
  const max = autoscaleMax(isJsonObject(settings) ? settings.maxThroughput : undefined);
  return { throughput: max / 10, autoscaleMaxThroughput: max };
}

export function offerResource(o: OfferState): JsonObject {
  const content: JsonObject = {
    offerThroughput: o.throughput,
    offerIsRUPerMinuteThroughputEnabled: false,
    offerMinimumThroughputParameters: {
      maxThroughputEverProvisioned: o.autoscaleMaxThroughput ?? o.throughput,
      maxConsumedStorageEverInKB: 0,
    },
  };
  if (o.autoscaleMaxThroughput !== undefined) {
    content.offerAutopilotSettings = { tier: 0, maximumTierThroughput: 0, autoUpgrade: false, maxThroughput: o.autoscaleMaxThroughput };
  }
  return {
    resource: o.resource,
    offerType: 'Invalid',
    offerResourceId: o.resourceRid,
    offerVersion: 'V2',
    content,
    id: o.id,
    _rid: o.id,
    _self: `offers/${o.id}/`,
    _etag: o.etag,
    _ts: o.ts,
  };
}

/**
 * A replace: the body names the offer's resource and its new content. Manual offers take
 * `content.offerThroughput`; autoscale ones `content.offerAutopilotSettings.maxThroughput`. Switching
 * between the two is a separate migration on the service, not a replace.
 */
export function replacedThroughput(current: OfferState, body: JsonObject): ThroughputRequest {
  if (body.offerResourceId !== undefined && body.offerResourceId !== current.resourceRid) {
    throw badRequest("The offer's offerResourceId cannot be changed.");
  }
  const content = body.content;
  if (!isJsonObject(content))
    throw badRequest('An offer replace needs content: {offerThroughput} or {offerAutopilotSettings: {maxThroughput}}.');
  const auto = content.offerAutopilotSettings;
  if (current.autoscaleMaxThroughput !== undefined) {
    if (!isJsonObject(auto))
      throw badRequest(
        'This offer is autoscale: replace content.offerAutopilotSettings.maxThroughput (migrating to manual throughput is a separate operation).',
      );
    const max = autoscaleMax(auto.maxThroughput);
    return { throughput: max / 10, autoscaleMaxThroughput: max };
  }
  if (isJsonObject(auto) && auto.maxThroughput !== undefined && auto.maxThroughput !== 0) {
    throw badRequest('This offer is manual: replace content.offerThroughput (migrating to autoscale is a separate operation).');
  }
  return { throughput: manual(Number(content.offerThroughput), 'content.offerThroughput') };
}
