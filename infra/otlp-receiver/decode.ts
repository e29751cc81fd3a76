/**
 * OTLP/JSON trace export requests (`ExportTraceServiceRequest`, as the OpenTelemetry protocol
 * specifies its JSON encoding) → flat spans. Ids arrive hex-encoded, as the specification says for
 * JSON; base64 (protobuf's JSON mapping, which some exporters send) is accepted too. 64-bit
 * integers arrive as strings or numbers.
 */
export type AttributeValue = string | number | boolean | null | AttributeValue[];

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** Absent for a root span. */
  parentSpanId?: string;
  name: string;
  /** 1 internal, 2 server, 3 client, 4 producer, 5 consumer (0 unspecified). */
  kind: number;
  startTimeMs: number;
  endTimeMs: number;
  attributes: Record<string, AttributeValue>;
  /** 0 unset, 1 ok, 2 error. */
  status: { code: number; message?: string };
  links: Array<{ traceId: string; spanId: string; attributes: Record<string, AttributeValue> }>;
  events: Array<{ name: string; attributes: Record<string, AttributeValue> }>;
  resource: Record<string, AttributeValue>;
  scope: { name: string; version?: string };
}

export class OtlpDecodeError extends Error {}

type Json = Record<string, unknown>;

export function decodeTraces(body: unknown): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const rs of list(object(body, 'request').resourceSpans, 'resourceSpans')) {
    const resource = attributes(object(object(rs, 'resourceSpans[]').resource ?? {}, 'resource').attributes);
    for (const ss of list(object(rs, 'resourceSpans[]').scopeSpans, 'scopeSpans')) {
      const scope = object(object(ss, 'scopeSpans[]').scope ?? {}, 'scope');
      for (const raw of list(object(ss, 'scopeSpans[]').spans, 'spans')) {
        const s = object(raw, 'span');
        const parent = s.parentSpanId === undefined || s.parentSpanId === '' ? undefined : id(s.parentSpanId, 'parentSpanId');
        const status = object(s.status ?? {}, 'status');
        out.push({
          traceId: id(s.traceId, 'traceId'),
          spanId: id(s.spanId, 'spanId'),
          ...(parent ? { parentSpanId: parent } : {}),
          name: String(s.name ?? ''),
          kind: Number(s.kind ?? 0),
          startTimeMs: nanosToMs(s.startTimeUnixNano),
          endTimeMs: nanosToMs(s.endTimeUnixNano),
          attributes: attributes(s.attributes),
          status: {
            code: Number(status.code ?? 0),
            ...(typeof status.message === 'string' && status.message ? { message: status.message } : {}),
          },
          links: list(s.links ?? [], 'links').map((l) => {
            const link = object(l, 'link');
            return {
              traceId: id(link.traceId, 'link.traceId'),
              spanId: id(link.spanId, 'link.spanId'),
              attributes: attributes(link.attributes),
            };
          }),
          events: list(s.events ?? [], 'events').map((e) => ({
            name: String(object(e, 'event').name ?? ''),
            attributes: attributes(object(e, 'event').attributes),
          })),
          resource,
          scope: { name: String(scope.name ?? ''), ...(typeof scope.version === 'string' ? { version: scope.version } : {}) },
        });
      }
    }
  }
  return out;
}

function attributes(raw: unknown): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {};
  for (const kv of list(raw ?? [], 'attributes')) {
    const { key, value } = object(kv, 'attribute');
    out[String(key)] = anyValue(value);
  }
  return out;
}

function anyValue(raw: unknown): AttributeValue {
  const v = object(raw ?? {}, 'value');
  if (typeof v.stringValue === 'string') return v.stringValue;
  if (typeof v.boolValue === 'boolean') return v.boolValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return Number(v.doubleValue);
  if (v.arrayValue !== undefined) return list(object(v.arrayValue, 'arrayValue').values ?? [], 'values').map(anyValue);
  return null;
}

function id(raw: unknown, what: string): string {
  if (typeof raw !== 'string' || raw === '') throw new OtlpDecodeError(`${what} must be a non-empty string`);
  if (/^[0-9a-f]+$/i.test(raw) && (raw.length === 32 || raw.length === 16)) return raw.toLowerCase();
  return Buffer.from(raw, 'base64').toString('hex');
}

function nanosToMs(raw: unknown): number {
  return Number(BigInt(String(raw ?? 0)) / 1_000_000n);
}

function object(raw: unknown, what: string): Json {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new OtlpDecodeError(`${what} must be an object`);
  return raw as Json;
}

function list(raw: unknown, what: string): unknown[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) throw new OtlpDecodeError(`${what} must be an array`);
  return raw;
}
