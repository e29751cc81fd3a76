import {
  context,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Link,
  type Span,
  type SpanContext,
} from '@opentelemetry/api';
import { truncateText } from '../util/truncate';
import { version } from '../util/version';

/**
 * opstream's spans, through `@opentelemetry/api` only: until the composition root registers an SDK
 * (`src/app/tracing.ts`), the tracer is the API's no-op one, so tracing off costs a few no-op calls
 * per handling. Attribute names are in `attributes.ts`.
 */
export const tracer = trace.getTracer('opstream', version);

export { ROOT_CONTEXT, SpanKind, type Span, type SpanContext };

export interface SpanOptions {
  kind?: SpanKind;
  attributes?: Attributes;
  links?: Link[];
  /** @defaultValue the active context */
  parent?: Context;
}

/** Runs `fn` in a new active span and ends it; a throw is recorded as the span's error and rethrown. */
export function inSpan<T>(name: string, options: SpanOptions, fn: (span: Span) => Promise<T>): Promise<T> {
  const { parent = context.active(), ...rest } = options;
  return tracer.startActiveSpan(name, rest, parent, async (span) => {
    try {
      return await fn(span);
    } catch (err) {
      failSpan(span, err);
      throw err;
    } finally {
      span.end();
    }
  });
}

/** Longest span status message: the SDK's attribute limits do not apply to it, and messages may quote documents or answers. */
export const STATUS_MESSAGE_MAX = 1024;

/** Marks a span failed with the error (message and exception event; the SDK's span limits cut the event's attributes). */
export function failSpan(span: Span, err: unknown): void {
  if (!span.isRecording()) return;
  const error = err instanceof Error ? err : new Error(String(err));
  span.recordException(error);
  span.setStatus({ code: SpanStatusCode.ERROR, message: truncateText(error.message, STATUS_MESSAGE_MAX) });
}

/** The span context of the active span when one records (a batch or relist that brings work), else undefined. */
export function activeSpanContext(): SpanContext | undefined {
  const span = trace.getActiveSpan();
  return span?.isRecording() ? span.spanContext() : undefined;
}

/** A context whose parent is `spanContext` (or the root when absent): a span started in it joins that trace. */
export function contextUnder(spanContext: SpanContext | undefined): Context {
  return spanContext ? trace.setSpanContext(ROOT_CONTEXT, spanContext) : ROOT_CONTEXT;
}

/** Runs `fn` with `span` active (its Cosmos and Clusters Service calls become its children). */
export function withSpan<T>(span: Span, fn: () => T): T {
  return context.with(trace.setSpan(context.active(), span), fn);
}
