import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startOtlpReceiver, type OtlpReceiver } from '@opstream/otlp-receiver';
import { ATTR } from '../../../src/tracing';
import { waitFor } from '../../helpers/wait-for';

/**
 * What reaches a collector is masked as log lines are: opstream's tracing set-up (the built
 * `src/app/tracing.ts`: the real SDK and OTLP/HTTP exporter, in a child process since the SDK is
 * loaded by dynamic import) sends a span whose URL attribute and error carry credentials to a
 * receiver on loopback, which gets them masked.
 */
const DIST = join(__dirname, '..', '..', '..', 'dist', 'src');

const SCRIPT = `
const { startTracing } = require(${JSON.stringify(join(DIST, 'app', 'tracing.js'))});
const { inSpan, SpanKind, ATTR } = require(${JSON.stringify(join(DIST, 'tracing', 'index.js'))});
const { createLogger } = require(${JSON.stringify(join(DIST, 'logging', 'logger.js'))});
(async () => {
  const tracing = await startTracing({ tracing: { otlpEndpoint: process.argv[1] } }, { instanceName: 'redaction-test', logger: createLogger({ silent: true }) });
  const url = 'http://svc:hunter2@127.0.0.1:9/api/clusters';
  await inSpan('GET /api/clusters', { kind: SpanKind.CLIENT, attributes: { [ATTR.url]: url } }, () => Promise.reject(new Error('connect ECONNREFUSED ' + url))).catch(() => undefined);
  await tracing.stop();
})().catch((err) => { console.error(err); process.exit(1); });
`;

describe('traces leave the process with URL credentials masked', () => {
  let otlp: OtlpReceiver;
  beforeAll(async () => {
    otlp = await startOtlpReceiver();
  });
  afterAll(() => otlp?.close());

  it('url.full, the exception and the status message arrive with the password masked', async () => {
    await promisify(execFile)(process.execPath, ['-e', SCRIPT, otlp.url], { timeout: 30_000 });
    const span = await waitFor(() => otlp.spans().find((s) => s.name === 'GET /api/clusters'), {
      timeoutMs: 10_000,
      describe: () => `the span; got ${JSON.stringify(otlp.spans())}`,
    });
    expect(JSON.stringify(span)).not.toContain('hunter2');
    expect(span.attributes[ATTR.url]).toBe('http://svc:***@127.0.0.1:9/api/clusters');
    expect(span.status).toEqual({ code: 2, message: 'connect ECONNREFUSED http://svc:***@127.0.0.1:9/api/clusters' });
    expect(span.events.find((e) => e.name === 'exception')?.attributes['exception.message']).toBe(
      'connect ECONNREFUSED http://svc:***@127.0.0.1:9/api/clusters',
    );
  });
});
