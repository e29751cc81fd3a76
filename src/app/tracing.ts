import { context, diag, DiagLogLevel, propagation, trace } from '@opentelemetry/api';
import type { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import type { OpstreamConfig } from '../config/config-types';
import type { Logger } from '../logging/logger';
import { version } from '../util/version';
import { redactingExporter } from './redacting-span-exporter';

/**
 * The OpenTelemetry SDK, set up here only (the code elsewhere uses `@opentelemetry/api`): on when
 * `tracing.otlpEndpoint`, `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` or `OTEL_EXPORTER_OTLP_ENDPOINT`
 * names an OTLP/HTTP receiver (and `OTEL_SDK_DISABLED` is not `true`); off otherwise, and then
 * the SDK is not even loaded and every span is the API's no-op. Spans go out in batches
 * (`OTEL_BSP_*` tune them), masked as log lines are (`redacting-span-exporter.ts`); the standard `OTEL_*` variables (sampler, resource attributes, headers)
 * apply. The provider is process-wide: instances in one process share it until the last stops.
 */
export interface TracingTarget {
  /** Where spans are POSTed (`…/v1/traces`). */
  url: string;
  /** Which setting or variable asked for it (for the start-up line). */
  source: string;
}

export function tracingTarget(config: Pick<OpstreamConfig, 'tracing'>, env: NodeJS.ProcessEnv = process.env): TracingTarget | undefined {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  if (config.tracing.otlpEndpoint) return { url: `${config.tracing.otlpEndpoint.replace(/\/+$/, '')}/v1/traces`, source: 'tracing.otlpEndpoint' };
  // As the OTLP exporter specification says: the per-signal variable is used as is, the general one gets /v1/traces.
  if (env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return { url: env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, source: 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT' };
  if (env.OTEL_EXPORTER_OTLP_ENDPOINT) return { url: `${env.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, '')}/v1/traces`, source: 'OTEL_EXPORTER_OTLP_ENDPOINT' };
  return undefined;
}

export interface Tracing {
  readonly target: TracingTarget;
  /** Flushes the spans still buffered; the last instance of the process to stop shuts the SDK down. */
  stop(): Promise<void>;
}

interface Shared {
  provider: NodeTracerProvider;
  users: number;
  target: TracingTarget;
}

let shared: Promise<Shared> | undefined;

/**
 * Span limits: attribute values come from documents and answers (ids, error messages), so none may
 * make a span, or an export request, large. The SDK's own default is no limit. An operator's
 * `OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT` / `OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT` (and the count
 * variables) still win: a limit left undefined here is read from them by the SDK.
 */
export const SPAN_LIMITS = Object.freeze({
  /** Characters of one attribute value (span, event and link attributes); longer ones are cut. */
  attributeValueLengthLimit: 4096,
  attributeCountLimit: 64,
  eventCountLimit: 32,
  linkCountLimit: 32,
  attributePerEventCountLimit: 16,
  attributePerLinkCountLimit: 16,
});

/** Each limit of SPAN_LIMITS unless the standard variable for it is set (then the SDK reads that). */
export function spanLimits(env: NodeJS.ProcessEnv = process.env): Partial<Record<keyof typeof SPAN_LIMITS, number>> {
  const set = (...names: string[]): boolean => names.some((n) => (env[n] ?? '').trim() !== '');
  const out: Partial<Record<keyof typeof SPAN_LIMITS, number>> = {};
  if (!set('OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT', 'OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT')) out.attributeValueLengthLimit = SPAN_LIMITS.attributeValueLengthLimit;
  if (!set('OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT', 'OTEL_ATTRIBUTE_COUNT_LIMIT')) out.attributeCountLimit = SPAN_LIMITS.attributeCountLimit;
  if (!set('OTEL_SPAN_EVENT_COUNT_LIMIT')) out.eventCountLimit = SPAN_LIMITS.eventCountLimit;
  if (!set('OTEL_SPAN_LINK_COUNT_LIMIT')) out.linkCountLimit = SPAN_LIMITS.linkCountLimit;
  if (!set('OTEL_EVENT_ATTRIBUTE_COUNT_LIMIT')) out.attributePerEventCountLimit = SPAN_LIMITS.attributePerEventCountLimit;
  if (!set('OTEL_LINK_ATTRIBUTE_COUNT_LIMIT')) out.attributePerLinkCountLimit = SPAN_LIMITS.attributePerLinkCountLimit;
  return out;
}

export async function startTracing(config: Pick<OpstreamConfig, 'tracing'>, options: { instanceName: string; logger: Logger }): Promise<Tracing | undefined> {
  const target = tracingTarget(config);
  if (!target) return undefined;
  shared ??= setUp(target, options);
  const sdk = await shared;
  sdk.users++;
  let stopped = false;
  return {
    target: sdk.target,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      await sdk.provider.forceFlush();
      if (--sdk.users > 0) return;
      shared = undefined;
      await sdk.provider.shutdown();
      // A later start in this process (tests) registers afresh.
      trace.disable();
      context.disable();
      propagation.disable();
      diag.disable();
    },
  };
}

async function setUp(target: TracingTarget, options: { instanceName: string; logger: Logger }): Promise<Shared> {
  const [{ createAzureSdkInstrumentation }, { OTLPTraceExporter }, { registerInstrumentations }, { detectResources, envDetector, resourceFromAttributes }, { BatchSpanProcessor, NodeTracerProvider }] =
    await Promise.all([
      import('@azure/opentelemetry-instrumentation-azure-sdk'),
      import('@opentelemetry/exporter-trace-otlp-http'),
      import('@opentelemetry/instrumentation'),
      import('@opentelemetry/resources'),
      import('@opentelemetry/sdk-trace-node'),
    ]);
  // Export failures (a collector down) become warning lines, never a failure of the pipeline.
  const text = (v: unknown): string => (v instanceof Error ? v.message : typeof v === 'string' ? v : JSON.stringify(v));
  const warn = (message: unknown, ...args: unknown[]): void => {
    const line = [message, ...args].map(text).join(' ');
    // Said of @azure/core-tracing, which the clients load first; the require below takes care of it.
    if (!line.includes('has been loaded before')) options.logger.warn(`tracing: ${line}`);
  };
  diag.setLogger({ error: warn, warn, info: () => undefined, debug: () => undefined, verbose: () => undefined }, DiagLogLevel.WARN);
  const resource = resourceFromAttributes({ 'service.name': 'opstream', 'service.version': version, 'service.instance.id': options.instanceName }).merge(
    detectResources({ detectors: [envDetector] }),
  );
  const provider = new NodeTracerProvider({ resource, spanLimits: spanLimits(), spanProcessors: [new BatchSpanProcessor(redactingExporter(new OTLPTraceExporter({ url: target.url })))] });
  // AsyncLocalStorage context, W3C trace-context and baggage propagation, the global provider.
  provider.register();
  // The Azure SDK clients report spans through @azure/core-tracing; this hook gives it an
  // OpenTelemetry instrumenter when it is required. It was loaded with the clients already, so
  // require it once more for the hook to see it.
  registerInstrumentations({ tracerProvider: provider, instrumentations: [createAzureSdkInstrumentation()] });
  await import('@azure/core-tracing');
  return { provider, users: 0, target };
}
