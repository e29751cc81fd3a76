import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '@opstream/otlp-receiver';

/**
 * The standard OpenTelemetry variables, as the specification defines them, drive opstream's tracing
 * set-up (the built `src/app/tracing.ts`, with the official exporters, in a child process: the SDK
 * is process-wide): OTEL_EXPORTER_OTLP_PROTOCOL picks http/protobuf, grpc or http/json, each of which
 * reaches the local receiver with the same spans; OTEL_TRACES_EXPORTER=none turns tracing off, and
 * not one request is sent. The child flushes before it exits, so once it has exited every export it
 * would make has been made: the counts read then are final.
 */
const DIST = join(__dirname, '..', '..', '..', 'dist', 'src');

const SCRIPT = `
const { startTracing } = require(${JSON.stringify(join(DIST, 'app', 'tracing.js'))});
const { inSpan, SpanKind } = require(${JSON.stringify(join(DIST, 'tracing', 'index.js'))});
const { createLogger } = require(${JSON.stringify(join(DIST, 'logging', 'logger.js'))});
(async () => {
  const tracing = await startTracing({ tracing: {} }, { instanceName: 'protocols-test', logger: createLogger({ silent: true }) });
  await inSpan('handle operation', { kind: SpanKind.INTERNAL, attributes: { 'opstream.operation.id': 'op-1', attempt: 3, retried: true, ratio: 0.5, tags: ['a', 'b'] } }, () =>
    inSpan('GET /api/clusters', { kind: SpanKind.CLIENT }, () => Promise.reject(new Error('boom'))).catch(() => undefined),
  );
  await tracing?.stop();
  process.stdout.write(JSON.stringify({ on: Boolean(tracing), url: tracing?.target.url ?? null, protocol: tracing?.target.protocol ?? null }));
})().catch((err) => { console.error(err); process.exit(1); });
`;

/** Runs the script with only the given OTEL_* variables (none inherited from this process). */
async function traceWith(env: Record<string, string>): Promise<{ on: boolean; url: string | null; protocol: string | null }> {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('OTEL_')));
  const { stdout } = await promisify(execFile)(process.execPath, ['-e', SCRIPT], { timeout: 30_000, env: { ...clean, ...env } });
  return JSON.parse(stdout) as { on: boolean; url: string | null; protocol: string | null };
}

function expectTheTwoSpans(spans: readonly ReceivedSpan[]): void {
  const parent = spans.find((s) => s.name === 'handle operation');
  const child = spans.find((s) => s.name === 'GET /api/clusters');
  expect(parent?.attributes).toMatchObject({ 'opstream.operation.id': 'op-1', attempt: 3, retried: true, ratio: 0.5, tags: ['a', 'b'] });
  expect(parent?.traceId).toMatch(/^[0-9a-f]{32}$/);
  expect(child).toMatchObject({ traceId: parent?.traceId, parentSpanId: parent?.spanId, kind: 3, status: { code: 2, message: 'boom' } });
  expect(child?.endTimeMs).toBeGreaterThanOrEqual(child?.startTimeMs ?? Infinity);
  expect(parent?.resource['service.name']).toBe('opstream');
  expect(parent?.resource['service.instance.id']).toBe('protocols-test');
}

describe('OTEL_EXPORTER_OTLP_PROTOCOL and OTEL_TRACES_EXPORTER', () => {
  let otlp: OtlpReceiver;
  beforeEach(async () => {
    otlp = await startOtlpReceiver();
  });
  afterEach(() => otlp?.close());

  it('http/protobuf (the default protocol) reaches the receiver as binary protobuf on <endpoint>/v1/traces', async () => {
    const run = await traceWith({ OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url });
    expect(run).toEqual({ on: true, url: `${otlp.url}/v1/traces`, protocol: 'http/protobuf' });
    expect(otlp.requestsBy).toEqual({ json: 0, protobuf: 1, grpc: 0 });
    expectTheTwoSpans(otlp.spans());
  });

  it('grpc reaches the receiver over OTLP/gRPC, the endpoint used as is', async () => {
    const run = await traceWith({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc', OTEL_EXPORTER_OTLP_ENDPOINT: otlp.grpcUrl });
    expect(run).toEqual({ on: true, url: otlp.grpcUrl, protocol: 'grpc' });
    expect(otlp.requestsBy).toEqual({ json: 0, protobuf: 0, grpc: 1 });
    expectTheTwoSpans(otlp.spans());
  });

  it('http/json reaches the receiver as JSON; the per-signal protocol variable wins over the general one', async () => {
    const run = await traceWith({
      OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${otlp.url}/v1/traces`,
    });
    expect(run).toEqual({ on: true, url: `${otlp.url}/v1/traces`, protocol: 'http/json' });
    expect(otlp.requestsBy).toEqual({ json: 1, protobuf: 0, grpc: 0 });
    expectTheTwoSpans(otlp.spans());
  });

  it('OTEL_TRACES_EXPORTER=none sends no span, though an endpoint is named (the same run without it sends them)', async () => {
    const off = await traceWith({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url });
    expect(off).toEqual({ on: false, url: null, protocol: null });
    expect(otlp.requests).toBe(0);
    expect(otlp.spans()).toEqual([]);
    const on = await traceWith({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url });
    expect(on.on).toBe(true);
    expect(otlp.requests).toBe(1);
    expectTheTwoSpans(otlp.spans());
  });
});
