import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startOtlpReceiver, type OtlpReceiver } from '@opstream/otlp-receiver';
import { SPAN_LIMITS, spanLimits } from '../../../src/app/tracing';
import { STATUS_MESSAGE_MAX } from '../../../src/tracing';

const WORKER_JS = join(__dirname, '../../../dist/test/fixtures/span-limits-worker.js');

/**
 * Span attributes carry fields of documents and answers (ids, error messages): the tracer provider
 * has limits, so a 300 KB value cannot make a span, or an OTLP export, 300 KB. The real SDK runs in
 * a child process (`test/fixtures/span-limits-worker.ts`, from the build) and exports to the local
 * OTLP receiver.
 */
describe('tracing: span limits set on the tracer provider', () => {
  let otlp: OtlpReceiver;
  beforeAll(async () => {
    otlp = await startOtlpReceiver();
  });
  afterAll(() => otlp?.close());

  it('a 300 KB attribute, event attribute and exception message, a thousand attributes and a hundred events are cut to the limits', async () => {
    // Without the operator's variables, so that opstream's defaults apply.
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('OTEL_')));
    await promisify(execFile)(process.execPath, [WORKER_JS, otlp.url], { env, timeout: 30_000 });
    const span = otlp.spans().find((s) => s.name === 'limited');
    if (!span) throw new Error(`the span was not exported (got ${otlp.spans().length} spans)`);
    expect(String(span.attributes['opstream.test.huge'])).toHaveLength(SPAN_LIMITS.attributeValueLengthLimit);
    expect(Object.keys(span.attributes).length).toBe(SPAN_LIMITS.attributeCountLimit);
    expect(span.events.length).toBe(SPAN_LIMITS.eventCountLimit);
    for (const e of span.events)
      for (const v of Object.values(e.attributes)) expect(String(v).length).toBeLessThanOrEqual(SPAN_LIMITS.attributeValueLengthLimit);
    expect(span.events.map((e) => e.name)).toContain('exception');
    expect(span.status.code).toBe(2);
    expect(span.status.message?.length).toBeLessThan(STATUS_MESSAGE_MAX + 64);
    expect(span.status.message).toContain('[truncated: 300000 characters]');
  });

  it("an operator's OTEL_* limit variables win over opstream's defaults", () => {
    expect(spanLimits({})).toEqual(SPAN_LIMITS);
    const withEnv = spanLimits({ OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT: '100', OTEL_SPAN_EVENT_COUNT_LIMIT: '5' });
    expect(withEnv).not.toHaveProperty('attributeValueLengthLimit');
    expect(withEnv).not.toHaveProperty('eventCountLimit');
    expect(withEnv.attributeCountLimit).toBe(SPAN_LIMITS.attributeCountLimit);
  });
});
