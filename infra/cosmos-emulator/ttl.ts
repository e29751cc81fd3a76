import { badRequest } from './errors';
import { StoredDoc } from './stored-doc';

/**
 * Time to live, as Cosmos defines it: with the container's `defaultTtl` absent nothing expires and item
 * `ttl`s are ignored; `-1` turns TTL on without a default (items with a `ttl` expire); a positive value
 * is the default. An item's `ttl: -1` never expires. Expiry counts from the write time in milliseconds
 * (Cosmos counts from `_ts`, whole seconds), so short TTLs in tests behave predictably.
 */
export function validateDefaultTtl(value: unknown): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value === 0 || value < -1) {
    throw badRequest(`The value of defaultTtl (${JSON.stringify(value)}) must be -1 or a positive integer.`);
  }
  return value;
}

/** An item's `ttl`: absent, -1 or a positive integer; anything else (`null` included) is 400, as on the service. */
export function validateItemTtl(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value === 0 || value < -1) {
    throw badRequest(`The value of ttl (${JSON.stringify(value)}) must be -1 or a positive integer number of seconds.`);
  }
  return value;
}

export function expiresAtMs(doc: StoredDoc, defaultTtl: number | undefined): number | undefined {
  if (defaultTtl === undefined) return undefined;
  const ttl = doc.ttl ?? defaultTtl;
  if (ttl === -1) return undefined;
  return doc.writeMs + ttl * 1000;
}

export function isExpired(doc: StoredDoc, defaultTtl: number | undefined, nowMs: number): boolean {
  const at = expiresAtMs(doc, defaultTtl);
  return at !== undefined && at <= nowMs;
}

/** Something whose expired documents can be purged. */
export interface Purgeable {
  purgeExpired(nowMs: number): number;
}

/** Purges expired documents in the background (reads already hide them; this frees the memory). */
export class TtlSweeper {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly target: Purgeable,
    private readonly intervalMs = 1000,
  ) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.target.purgeExpired(Date.now()), this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
