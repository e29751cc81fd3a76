/**
 * The frontend's correlation ids of an operation (ARM's `x-ms-correlation-request-id` and
 * `x-ms-client-request-id`, stored on the Operation as `correlationRequestId` and
 * `clientRequestId`). They go on every log line and span about the operation and, as the same ARM
 * headers, on every Clusters Service call and ARM notification made for it.
 */
export interface CorrelationIds {
  correlationRequestId?: string;
  clientRequestId?: string;
}

const CORRELATION_HEADERS = Object.freeze({
  correlationRequestId: 'x-ms-correlation-request-id',
  clientRequestId: 'x-ms-client-request-id',
});

/** Longest id kept: the fields are the frontend's, from request headers; a log line stays bounded. */
const MAX_LENGTH = 256;

/** The correlation ids of a document, whatever it holds (unvalidated documents too): non-empty strings only. */
export function correlationOf(doc: { correlationRequestId?: unknown; clientRequestId?: unknown }): CorrelationIds {
  const out: CorrelationIds = {};
  const c = keep(doc.correlationRequestId);
  const r = keep(doc.clientRequestId);
  if (c) out.correlationRequestId = c;
  if (r) out.clientRequestId = r;
  return out;
}

/** The ARM request headers carrying them (none for absent ids). */
export function correlationHeaders(ids: CorrelationIds): Record<string, string> {
  const h: Record<string, string> = {};
  if (ids.correlationRequestId) h[CORRELATION_HEADERS.correlationRequestId] = ids.correlationRequestId;
  if (ids.clientRequestId) h[CORRELATION_HEADERS.clientRequestId] = ids.clientRequestId;
  return h;
}

function keep(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v.slice(0, MAX_LENGTH) : undefined;
}
