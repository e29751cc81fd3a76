import type { Attributes, AttributeValue } from '@opentelemetry/api';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-node';
import { redactString } from '../logging/redact';

/**
 * Spans leave the process masked as log lines are: every string a span carries (name, attributes,
 * status message, exception events) goes through the log redaction on its way to the exporter, so a
 * URL with credentials (`https://user:secret@host`), a bearer token or a key in an error message
 * never reaches the collector. The spans themselves are not touched: the exporter gets copies.
 */
export function redactingExporter(inner: SpanExporter): SpanExporter {
  return {
    export: (spans, done) => inner.export(spans.map(redactSpan), done),
    shutdown: () => inner.shutdown(),
    forceFlush: () => inner.forceFlush?.() ?? Promise.resolve(),
  };
}

function redactSpan(span: ReadableSpan): ReadableSpan {
  return {
    name: redactString(span.name),
    kind: span.kind,
    spanContext: () => span.spanContext(),
    parentSpanContext: span.parentSpanContext,
    startTime: span.startTime,
    endTime: span.endTime,
    status: span.status.message === undefined ? span.status : { ...span.status, message: redactString(span.status.message) },
    attributes: redactAttributes(span.attributes),
    links: span.links.map((link) => (link.attributes ? { ...link, attributes: redactAttributes(link.attributes) } : link)),
    events: span.events.map((event) => ({
      ...event,
      name: redactString(event.name),
      ...(event.attributes ? { attributes: redactAttributes(event.attributes) } : {}),
    })),
    duration: span.duration,
    ended: span.ended,
    resource: span.resource,
    instrumentationScope: span.instrumentationScope,
    droppedAttributesCount: span.droppedAttributesCount,
    droppedEventsCount: span.droppedEventsCount,
    droppedLinksCount: span.droppedLinksCount,
  };
}

function redactAttributes(attributes: Attributes): Attributes {
  const out: Attributes = {};
  for (const [key, value] of Object.entries(attributes)) out[key] = redactValue(value);
  return out;
}

function redactValue(value: AttributeValue | undefined): AttributeValue | undefined {
  if (typeof value === 'string') return redactString(value);
  if (Array.isArray(value)) return value.map((v) => (typeof v === 'string' ? redactString(v) : v)) as AttributeValue;
  return value;
}
