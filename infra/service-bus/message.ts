import { Typed, types } from './amqp';
import { BareFields, HeaderFields, MapEntry, SECTION, buildMapSection, encodeHeader, mapEntries, readBare, withoutBody } from './sections';
import { SqlMessageView, SqlValue } from './sql-filter';

/** A message as the broker holds it: the sender's bytes plus the broker's state. */
export interface BrokerMessage {
  seq: number;
  enqueuedAt: number;
  header: HeaderFields;
  /** message annotations the sender set (raw entries; the broker's own keys are added on delivery) */
  annotations: MapEntry[];
  bare: Buffer;
  fields: BareFields;
  expiresAt: number;
  ttlMs: number;
  deliveryCount: number;
  state: 'active' | 'deferred' | 'scheduled';
  scheduledAt?: number;
  deadLetterSource?: string;
  lock?: MessageLock;
}

export interface MessageLock {
  /** the lock token as the SDK sends it back through $management (uuid bytes, hex) */
  key: string;
  until: number;
  /** owner link id when delivered on a link */
  owner?: string;
}

/** The largest `ttl` an AMQP header carries (uint, milliseconds). */
export const MAX_HEADER_TTL_MS = 0xffff_ffff;

const BROKER_KEYS = new Set([
  'x-opt-sequence-number',
  'x-opt-enqueued-time',
  'x-opt-locked-until',
  'x-opt-message-state',
  'x-opt-deadletter-source',
  'x-opt-enqueue-sequence-number',
]);

/** .NET GUID byte order (the SDK reorders a delivery tag this way to make the lock token string). */
export function reorderGuid(b: Buffer): Buffer {
  return Buffer.from([b[3], b[2], b[1], b[0], b[5], b[4], b[7], b[6], ...b.subarray(8, 16)]);
}

export function longTyped(n: number): Typed {
  return types.wrap_long(n);
}

/** A timestamp as .NET ticks in a long, the way the service sends `com.microsoft:locked-until-utc`. */
export function ticksTyped(ms: number): Typed {
  const ticks = BigInt(Math.round(ms)) * 10000n + 621355968000000000n;
  const b = Buffer.alloc(8);
  b.writeBigInt64BE(ticks);
  return types.wrap_long(b);
}

/** The bytes of a delivery: a fresh header, the sender's annotations plus the broker's, the bare message. */
export function encodeForDelivery(m: BrokerMessage, opts: { lockedUntil?: number; omitBody?: boolean } = {}): Buffer {
  const header: HeaderFields = { ...m.header, delivery_count: m.deliveryCount };
  // The header's ttl is a uint (milliseconds): an entity default beyond 49.7 days goes without it, as the
  // SDK's own sends cap theirs; the broker enforces the whole TTL from expiresAt either way.
  if (m.ttlMs <= MAX_HEADER_TTL_MS) header.ttl = m.ttlMs;
  else delete header.ttl;
  const kept = m.annotations.filter((e) => !BROKER_KEYS.has(e.key)).map((e) => e.raw);
  const added: [Typed, Typed][] = [
    [types.wrap_symbol('x-opt-sequence-number'), longTyped(m.seq)],
    [types.wrap_symbol('x-opt-enqueued-time'), types.wrap_timestamp(m.enqueuedAt)],
  ];
  if (opts.lockedUntil !== undefined) added.push([types.wrap_symbol('x-opt-locked-until'), types.wrap_timestamp(opts.lockedUntil)]);
  // the service reports a message sent with a scheduled enqueue time as scheduled, also once it is due
  const state = m.state === 'deferred' ? 1 : m.state === 'scheduled' || m.scheduledAt !== undefined ? 2 : 0;
  if (state) added.push([types.wrap_symbol('x-opt-message-state'), types.wrap_int(state)]);
  if (m.deadLetterSource) added.push([types.wrap_symbol('x-opt-deadletter-source'), types.wrap_string(m.deadLetterSource)]);
  const bare = opts.omitBody ? withoutBody(m.bare) : m.bare;
  return Buffer.concat([encodeHeader(header), buildMapSection(SECTION.messageAnnotations, kept, added), bare]);
}

export function annotationValue(m: BrokerMessage, key: string): unknown {
  return m.annotations.find((e) => e.key === key)?.value;
}

export function copyMessage(m: BrokerMessage): BrokerMessage {
  return { ...m, header: { ...m.header }, lock: undefined };
}

/** What SQL and correlation filters see. */
export function filterView(m: BrokerMessage): SqlMessageView {
  const f = m.fields;
  const sys: Record<string, SqlValue | undefined> = {
    messageid: f.messageId,
    correlationid: f.correlationId,
    to: f.to,
    replyto: f.replyTo,
    label: f.subject,
    subject: f.subject,
    sessionid: f.sessionId,
    replytosessionid: f.replyToSessionId,
    contenttype: f.contentType,
    sequencenumber: m.seq,
    deliverycount: m.deliveryCount,
    enqueuedtimeutc: m.enqueuedAt,
    scheduledenqueuetimeutc: m.scheduledAt,
    size: m.bare.length,
  };
  return {
    system: (name) => sys[name.toLowerCase()],
    user: (name) => {
      const props = f.applicationProperties;
      let v: unknown = props[name];
      if (v === undefined) {
        const k = Object.keys(props).find((p) => p.toLowerCase() === name.toLowerCase());
        v = k === undefined ? undefined : props[k];
      }
      if (v === undefined) return undefined;
      if (v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return v;
      if (v instanceof Date) return v.getTime();
      return String(v);
    },
  };
}

/** JSON form for the journal. */
export interface StoredMessage {
  seq: number;
  enq: number;
  hdr: HeaderFields;
  ann: string;
  bare: string;
  exp: number | null;
  ttl: number | null;
  dc: number;
  st: BrokerMessage['state'];
  sch?: number;
  dls?: string;
}

export function toStored(m: BrokerMessage): StoredMessage {
  return {
    seq: m.seq,
    enq: m.enqueuedAt,
    hdr: m.header,
    ann: buildMapSection(
      SECTION.messageAnnotations,
      m.annotations.map((e) => e.raw),
      [],
    ).toString('base64'),
    bare: m.bare.toString('base64'),
    exp: Number.isFinite(m.expiresAt) ? m.expiresAt : null,
    ttl: Number.isFinite(m.ttlMs) ? m.ttlMs : null,
    dc: m.deliveryCount,
    st: m.state,
    sch: m.scheduledAt,
    dls: m.deadLetterSource,
  };
}

export function fromStored(s: StoredMessage): BrokerMessage {
  const bare = Buffer.from(s.bare, 'base64');
  return {
    seq: s.seq,
    enqueuedAt: s.enq,
    header: s.hdr,
    annotations: mapEntries(Buffer.from(s.ann, 'base64')),
    bare,
    fields: readBare(bare),
    expiresAt: s.exp ?? Infinity,
    ttlMs: s.ttl ?? Infinity,
    deliveryCount: s.dc,
    state: s.st,
    scheduledAt: s.sch,
    deadLetterSource: s.dls,
  };
}
