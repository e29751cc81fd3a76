import { context, diag, DiagLogLevel, propagation, trace } from '@opentelemetry/api';
import type { NodeTracerProvider, SpanExporter, SpanProcessor } from '@opentelemetry/sdk-trace-node';
import type { OpstreamConfig } from '../config/config-types';
import type { Logger } from '../logging/logger';
import { version } from '../util/version';
import { redactingExporter } from './redacting-span-exporter';

/**
 * The OpenTelemetry SDK, set up here only (the code elsewhere uses `@opentelemetry/api`), from the
 * standard variables as the OpenTelemetry specification defines them:
 * - `OTEL_SDK_DISABLED=true`: off;
 * - `OTEL_TRACES_EXPORTER`: `otlp`, `console` (comma-separated, both allowed) or `none` (off);
 *   unset, tracing is on only when an OTLP endpoint is named (`tracing.otlpEndpoint`,
 *   `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, `OTEL_EXPORTER_OTLP_ENDPOINT`), so that an instance
 *   without a collector pays nothing: the SDK is not even loaded and every span is the API's no-op;
 * - `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL` / `OTEL_EXPORTER_OTLP_PROTOCOL`: `http/protobuf` (the
 *   specification's default), `grpc` or `http/json`, each with the official exporter;
 * - the endpoint: the per-signal variable as is, the general one with `/v1/traces` over HTTP (as is
 *   over gRPC), else the specification's defaults (http://localhost:4318, :4317 for gRPC);
 *   `tracing.otlpEndpoint` wins over both;
 * - headers, timeout, compression, certificates, sampler, resource attributes, `OTEL_BSP_*`: read by
 *   the exporters and the SDK themselves.
 * Spans are masked as log lines are (`redacting-span-exporter.ts`). The provider is process-wide:
 * instances in one process share it until the last stops.
 */
type OtlpProtocol = 'http/protobuf' | 'grpc' | 'http/json';

const OTLP_PROTOCOLS: readonly OtlpProtocol[] = ['http/protobuf', 'grpc', 'http/json'];

export interface TracingTarget {
  /** Where OTLP spans go (`…/v1/traces` over HTTP, the server's address over gRPC); undefined without the otlp exporter. */
  url?: string;
  protocol?: OtlpProtocol;
  /** Spans are also written to standard output (OTEL_TRACES_EXPORTER=console). */
  console: boolean;
  /** Which setting or variable asked for it (for the start-up line). */
  source: string;
  /** Values of the variables that were not understood and were ignored (the specification says: warn). */
  ignored: string[];
}

const clean = (v: string | undefined): string => (v ?? '').trim();

export function tracingTarget(config: Pick<OpstreamConfig, 'tracing'>, env: NodeJS.ProcessEnv = process.env): TracingTarget | undefined {
  if (clean(env.OTEL_SDK_DISABLED).toLowerCase() === 'true') return undefined;
  const ignored: string[] = [];
  const listed = clean(env.OTEL_TRACES_EXPORTER)
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter((s) => s !== '');
  if (listed.includes('none')) return undefined;
  for (const name of listed) if (name !== 'otlp' && name !== 'console') ignored.push(`OTEL_TRACES_EXPORTER=${name}`);
  const protocol = otlpProtocol(env, ignored);
  const endpoint = otlpEndpoint(config, env, protocol);
  const asked = listed.filter((s) => s === 'otlp' || s === 'console');
  // What it lists; unset (or only values not understood, which are ignored): otlp when an endpoint is named.
  const exporters = asked.length > 0 ? asked : endpoint ? ['otlp'] : [];
  if (exporters.length === 0) return undefined;
  const otlp = exporters.includes('otlp');
  const fallback = protocol === 'grpc' ? 'http://localhost:4317' : 'http://localhost:4318/v1/traces';
  return {
    ...(otlp ? { url: endpoint?.url ?? fallback, protocol } : {}),
    console: exporters.includes('console'),
    source:
      listed.length > 0
        ? `OTEL_TRACES_EXPORTER=${listed.join(',')}${endpoint ? `, ${endpoint.source}` : ''}`
        : (endpoint?.source ?? 'default'),
    ignored,
  };
}

/** The traces protocol: the per-signal variable, else the general one, else http/protobuf. */
function otlpProtocol(env: NodeJS.ProcessEnv, ignored: string[]): OtlpProtocol {
  for (const name of ['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', 'OTEL_EXPORTER_OTLP_PROTOCOL']) {
    const value = clean(env[name]).toLowerCase();
    if (value === '') continue;
    if ((OTLP_PROTOCOLS as readonly string[]).includes(value)) return value as OtlpProtocol;
    ignored.push(`${name}=${value}`);
  }
  return 'http/protobuf';
}

function otlpEndpoint(
  config: Pick<OpstreamConfig, 'tracing'>,
  env: NodeJS.ProcessEnv,
  protocol: OtlpProtocol,
): { url: string; source: string } | undefined {
  const signal = (base: string): string => (protocol === 'grpc' ? base : `${base.replace(/\/+$/, '')}/v1/traces`);
  if (config.tracing.otlpEndpoint) return { url: signal(config.tracing.otlpEndpoint), source: 'tracing.otlpEndpoint' };
  // As the OTLP exporter specification says: the per-signal variable is used as is, the general one gets /v1/traces (over HTTP).
  const traces = clean(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
  if (traces) return { url: traces, source: 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT' };
  const general = clean(env.OTEL_EXPORTER_OTLP_ENDPOINT);
  if (general) return { url: signal(general), source: 'OTEL_EXPORTER_OTLP_ENDPOINT' };
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
  if (!set('OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT', 'OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT'))
    out.attributeValueLengthLimit = SPAN_LIMITS.attributeValueLengthLimit;
  if (!set('OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT', 'OTEL_ATTRIBUTE_COUNT_LIMIT')) out.attributeCountLimit = SPAN_LIMITS.attributeCountLimit;
  if (!set('OTEL_SPAN_EVENT_COUNT_LIMIT')) out.eventCountLimit = SPAN_LIMITS.eventCountLimit;
  if (!set('OTEL_SPAN_LINK_COUNT_LIMIT')) out.linkCountLimit = SPAN_LIMITS.linkCountLimit;
  if (!set('OTEL_EVENT_ATTRIBUTE_COUNT_LIMIT')) out.attributePerEventCountLimit = SPAN_LIMITS.attributePerEventCountLimit;
  if (!set('OTEL_LINK_ATTRIBUTE_COUNT_LIMIT')) out.attributePerLinkCountLimit = SPAN_LIMITS.attributePerLinkCountLimit;
  return out;
}

export async function startTracing(
  config: Pick<OpstreamConfig, 'tracing'>,
  options: { instanceName: string; logger: Logger },
): Promise<Tracing | undefined> {
  const target = tracingTarget(config);
  for (const value of target?.ignored ?? [])
    options.logger.warn(
      `tracing: ${value} is not understood and is ignored (OTEL_TRACES_EXPORTER: otlp, console or none; OTEL_EXPORTER_OTLP_PROTOCOL: ${OTLP_PROTOCOLS.join(', ')})`,
    );
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
  const [
    { createAzureSdkInstrumentation },
    { registerInstrumentations },
    { detectResources, envDetector, resourceFromAttributes },
    { BatchSpanProcessor, ConsoleSpanExporter, NodeTracerProvider, SimpleSpanProcessor },
  ] = await Promise.all([
    import('@azure/opentelemetry-instrumentation-azure-sdk'),
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
  const resource = resourceFromAttributes({
    'service.name': 'opstream',
    'service.version': version,
    'service.instance.id': options.instanceName,
  }).merge(detectResources({ detectors: [envDetector] }));
  const spanProcessors: SpanProcessor[] = [];
  if (target.url && target.protocol)
    spanProcessors.push(new BatchSpanProcessor(redactingExporter(await otlpExporter(target.protocol, target.url))));
  if (target.console) spanProcessors.push(new SimpleSpanProcessor(redactingExporter(new ConsoleSpanExporter())));
  const provider = new NodeTracerProvider({ resource, spanLimits: spanLimits(), spanProcessors });
  // AsyncLocalStorage context, W3C trace-context and baggage propagation, the global provider.
  provider.register();
  // The Azure SDK clients report spans through @azure/core-tracing; this hook gives it an
  // OpenTelemetry instrumenter when it is required. It was loaded with the clients already, so
  // require it once more for the hook to see it.
  registerInstrumentations({ tracerProvider: provider, instrumentations: [createAzureSdkInstrumentation()] });
  await import('@azure/core-tracing');
  return { provider, users: 0, target };
}

/** The official OTLP exporter of the protocol, loaded only when asked for (the gRPC one brings @grpc/grpc-js). */
async function otlpExporter(protocol: OtlpProtocol, url: string): Promise<SpanExporter> {
  switch (protocol) {
    case 'grpc':
      return new (await import('@opentelemetry/exporter-trace-otlp-grpc')).OTLPTraceExporter({ url });
    case 'http/json':
      return new (await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter({ url });
    case 'http/protobuf':
      return new (await import('@opentelemetry/exporter-trace-otlp-proto')).OTLPTraceExporter({ url });
  }
}
