import { SpanStatusCode } from '@opentelemetry/api';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { redactingExporter } from '../../../src/app/redacting-span-exporter';

/**
 * What opstream exports is what the SDK hands its exporter: spans from a real tracer provider go
 * through the redacting exporter into the SDK's in-memory exporter, which shows what would have
 * left the process.
 */
describe('spans leave the process masked as log lines are', () => {
  const exported = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(redactingExporter(exported))] });
  const tracer = provider.getTracer('test');
  afterAll(() => provider.shutdown());

  it('masks URL credentials and keys in attributes, events and the status message; leaves the rest and the original span alone', () => {
    const span = tracer.startSpan('POST https://user:hunter2@clusters.example/api', {
      attributes: {
        'url.full': 'https://user:hunter2@clusters.example/api',
        'server.port': 443,
        'opstream.lease.token': '0',
        tags: ['AccountKey=c2VjcmV0==;', 'plain'],
      },
    });
    span.recordException(new Error('connect to https://user:hunter2@clusters.example failed, Authorization: Bearer eyJ0.x.y'));
    span.setStatus({ code: SpanStatusCode.ERROR, message: 'refused by https://token123@clusters.example' });
    span.end();

    const [sent] = exported.getFinishedSpans();
    const text = JSON.stringify({ name: sent.name, attributes: sent.attributes, events: sent.events, status: sent.status });
    expect(text).not.toMatch(/hunter2|c2VjcmV0|eyJ0|token123/);
    expect(sent.name).toBe('POST https://user:***@clusters.example/api');
    expect(sent.attributes).toEqual({
      'url.full': 'https://user:***@clusters.example/api',
      'server.port': 443,
      'opstream.lease.token': '0',
      tags: ['AccountKey=***;', 'plain'],
    });
    expect(sent.events[0].attributes?.['exception.message']).toBe(
      'connect to https://user:***@clusters.example failed, Authorization: Bearer ***',
    );
    expect(sent.status).toEqual({ code: SpanStatusCode.ERROR, message: 'refused by https://***@clusters.example' });
    expect(sent.spanContext().traceId).toBe(span.spanContext().traceId);
    // The span itself keeps what was set (other processors see it unchanged); only the copy is masked.
    expect((span as unknown as { attributes: Record<string, unknown> }).attributes['url.full']).toBe(
      'https://user:hunter2@clusters.example/api',
    );
  });
});
