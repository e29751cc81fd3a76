import { randomUUID } from 'node:crypto';
import { Typed, decodeMessage, encodeMessage, isRecord, newReader, newWriter, types } from './amqp';

/**
 * AMQP message sections, kept as the bytes the sender wrote. The service never re-encodes the bare
 * message (properties, application properties, body, footer): it only replaces the header and adds its
 * own message annotations. This module splits a transfer into sections and splices annotation maps.
 */
export const SECTION = {
  header: 0x70,
  deliveryAnnotations: 0x71,
  messageAnnotations: 0x72,
  properties: 0x73,
  applicationProperties: 0x74,
  data: 0x75,
  sequence: 0x76,
  value: 0x77,
  footer: 0x78,
} as const;

export interface RawSection {
  code: number;
  bytes: Buffer;
  /** rhea's decoded value of the section (for data: the Buffer). */
  value: unknown;
}

export class MalformedMessage extends Error {}

interface TypedLike {
  value?: unknown;
  descriptor?: { value?: unknown };
}

function asTyped(v: unknown): TypedLike {
  return typeof v === 'object' && v !== null ? (v as TypedLike) : {};
}

export function splitSections(buf: Buffer): RawSection[] {
  const reader = newReader(buf);
  const out: RawSection[] = [];
  try {
    while (reader.remaining() > 0) {
      const start = reader.position;
      const s = asTyped(reader.read());
      const end = reader.position;
      if (end > buf.length) throw new MalformedMessage('section runs past the end of the transfer');
      const code = s.descriptor?.value;
      if (typeof code !== 'number') throw new MalformedMessage('expected a described message section');
      out.push({ code, bytes: buf.subarray(start, end), value: s.value });
    }
  } catch (err) {
    if (err instanceof MalformedMessage) throw err;
    throw new MalformedMessage(`cannot decode the message: ${err instanceof Error ? err.message : String(err)}`);
  }
  return out;
}

export interface MapEntry {
  key: string;
  /** key and value, encoded */
  raw: Buffer;
  value: unknown;
}

/** The entries of an annotations or application-properties section (described map), raw and decoded. */
export function mapEntries(section: Buffer): MapEntry[] {
  const reader = newReader(section);
  const pos = (): number => reader.position;
  const code0 = reader.read_typecode();
  if (code0 !== 0x00) throw new MalformedMessage('expected a described section');
  reader.read(); // descriptor
  const code = reader.read_typecode();
  if (code === 0x40) return [];
  let count: number;
  if (code === 0xc1) {
    reader.read_uint(1);
    count = reader.read_uint(1);
  } else if (code === 0xd1) {
    reader.read_uint(4);
    count = reader.read_uint(4);
  } else throw new MalformedMessage(`expected a map section, got type 0x${code.toString(16)}`);
  const entries: MapEntry[] = [];
  for (let i = 0; i < count; i += 2) {
    const start = pos();
    const k = asTyped(reader.read()).value;
    const v = reader.read();
    entries.push({ key: String(k), raw: section.subarray(start, pos()), value: unwrapValue(v) });
  }
  return entries;
}

function unwrapValue(v: unknown): unknown {
  return types.unwrap(v as Typed);
}

/** Encodes a described map section from kept raw entries plus new typed ones. */
export function buildMapSection(code: number, kept: Buffer[], added: [Typed, Typed][]): Buffer {
  const w = newWriter();
  for (const [k, v] of added) {
    w.write(k);
    w.write(v);
  }
  const addedBytes = w.toBuffer();
  const body = Buffer.concat([...kept, addedBytes]);
  const head = Buffer.alloc(3 + 1 + 8);
  head[0] = 0x00;
  head[1] = 0x53;
  head[2] = code;
  head[3] = 0xd1;
  head.writeUInt32BE(body.length + 4, 4);
  head.writeUInt32BE(kept.length * 2 + added.length * 2, 8);
  return Buffer.concat([head, body]);
}

export interface HeaderFields {
  durable?: boolean;
  priority?: number;
  ttl?: number;
  first_acquirer?: boolean;
  delivery_count?: number;
}

export function encodeHeader(h: HeaderFields): Buffer {
  const encoded = encodeMessage({ ...h });
  const first = splitSections(encoded)[0];
  return Buffer.from(first.bytes);
}

export function readHeader(section: RawSection | undefined): HeaderFields {
  if (!section) return {};
  const m = decodeMessage(section.bytes);
  const out: HeaderFields = {};
  if (typeof m.durable === 'boolean') out.durable = m.durable;
  if (typeof m.priority === 'number') out.priority = m.priority;
  if (typeof m.ttl === 'number') out.ttl = m.ttl;
  if (typeof m.first_acquirer === 'boolean') out.first_acquirer = m.first_acquirer;
  return out;
}

/** Properties and application properties, decoded from the bare message. */
export interface BareFields {
  messageId?: string;
  /** message_id as it was on the wire (string, uuid, ulong or binary) */
  messageIdRaw?: unknown;
  sessionId?: string;
  correlationId?: string;
  to?: string;
  replyTo?: string;
  subject?: string;
  contentType?: string;
  replyToSessionId?: string;
  applicationProperties: Record<string, unknown>;
}

export function readBare(bare: Buffer): BareFields {
  const m = decodeMessage(bare);
  const str = (v: unknown): string | undefined =>
    v === undefined || v === null ? undefined : Buffer.isBuffer(v) ? v.toString('hex') : String(v);
  return {
    messageId: str(m.message_id),
    messageIdRaw: m.message_id,
    sessionId: str(m.group_id),
    correlationId: str(m.correlation_id),
    to: str(m.to),
    replyTo: str(m.reply_to),
    subject: str(m.subject),
    contentType: str(m.content_type),
    replyToSessionId: str(m.reply_to_group_id),
    applicationProperties: isRecord(m.application_properties) ? m.application_properties : {},
  };
}

export interface ParsedTransfer {
  header: HeaderFields;
  /** message annotations the sender set, raw entries */
  annotations: MapEntry[];
  /** properties … footer, as sent */
  bare: Buffer;
  fields: BareFields;
}

export function parseTransfer(buf: Buffer): ParsedTransfer {
  const sections = splitSections(buf);
  let header: RawSection | undefined;
  let annotations: MapEntry[] = [];
  const bareParts: Buffer[] = [];
  for (const s of sections) {
    if (s.code === SECTION.header) header = s;
    else if (s.code === SECTION.deliveryAnnotations) continue;
    else if (s.code === SECTION.messageAnnotations) annotations = mapEntries(s.bytes);
    else if (s.code >= SECTION.properties && s.code <= SECTION.footer) bareParts.push(s.bytes);
    else throw new MalformedMessage(`unknown message section 0x${s.code.toString(16)}`);
  }
  if (!bareParts.length) throw new MalformedMessage('the message has no body');
  let bare = Buffer.from(Buffer.concat(bareParts));
  const props = sections.find((s) => s.code === SECTION.properties);
  const decodedProps = props ? decodeMessage(props.bytes) : {};
  if (decodedProps.message_id === undefined || decodedProps.message_id === null) {
    // the service gives every message an id (settling through $management needs one)
    const fields: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(decodedProps)) if (v !== undefined && v !== null && k !== 'body') fields[k] = v;
    fields.message_id = randomUUID().replace(/-/g, '');
    const encodedProps = splitSections(encodeMessage(fields)).find((s) => s.code === SECTION.properties)!.bytes;
    bare = Buffer.concat([encodedProps, ...bareParts.filter((b) => b !== props?.bytes)]);
  }
  return { header: readHeader(header), annotations, bare, fields: readBare(bare) };
}

/** The messages of a batch (format 0x80013700): each data section of the outer message is one message. */
export function batchParts(buf: Buffer): Buffer[] {
  const parts = splitSections(buf)
    .filter((s) => s.code === SECTION.data)
    .map((s) => s.value);
  if (!parts.every((p): p is Buffer => Buffer.isBuffer(p))) throw new MalformedMessage('a batch data section is not binary');
  return parts;
}

/**
 * Sets AMQP properties fields (`to`, `subject`, …; null clears one) in a bare message: the properties
 * section is re-encoded, every other section keeps its bytes. Values become strings, as the service's are.
 */
export function withSystemProperties(bare: Buffer, set: Record<string, unknown>): Buffer {
  const sections = splitSections(bare);
  const props = sections.find((s) => s.code === SECTION.properties);
  const fields: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(props ? decodeMessage(props.bytes) : {}))
    if (v !== undefined && v !== null && k !== 'body') fields[k] = v;
  for (const [k, v] of Object.entries(set)) {
    if (v === null || v === undefined) delete fields[k];
    else fields[k] = String(v);
  }
  const encoded = splitSections(encodeMessage(fields)).find((s) => s.code === SECTION.properties)?.bytes;
  const rest = sections.filter((s) => s !== props).map((s) => s.bytes);
  return Buffer.concat(encoded ? [encoded, ...rest] : rest);
}

/** The bare message without its body sections (`peek-message` with `omit-message-body`). */
export function withoutBody(bare: Buffer): Buffer {
  const body = new Set<number>([SECTION.data, SECTION.sequence, SECTION.value]);
  return Buffer.concat(
    splitSections(bare)
      .filter((s) => !body.has(s.code))
      .map((s) => s.bytes),
  );
}

/**
 * Replaces (or adds) application properties in a bare message, keeping every other section's bytes.
 * Values take AMQP types as rhea infers them (the SDK's `propertiesToModify` arrive decoded the same way).
 */
export function withApplicationProperties(bare: Buffer, set: Record<string, unknown>, remove: string[] = []): Buffer {
  const sections = splitSections(bare);
  const added: [Typed, Typed][] = Object.entries(set).map(([k, v]) => [
    types.wrap_string(k),
    typeof v === 'string' ? types.wrap_string(v) : types.wrap(v),
  ]);
  const names = new Set([...Object.keys(set), ...remove]);
  const appIdx = sections.findIndex((s) => s.code === SECTION.applicationProperties);
  const kept =
    appIdx >= 0
      ? mapEntries(sections[appIdx].bytes)
          .filter((e) => !names.has(e.key))
          .map((e) => e.raw)
      : [];
  const app = buildMapSection(SECTION.applicationProperties, kept, added);
  const out: Buffer[] = [];
  let placed = false;
  for (const s of sections) {
    if (s.code === SECTION.applicationProperties) {
      out.push(app);
      placed = true;
    } else {
      if (!placed && s.code > SECTION.applicationProperties) {
        out.push(app);
        placed = true;
      }
      out.push(s.bytes);
    }
  }
  if (!placed) out.push(app);
  return Buffer.concat(out);
}
