/**
 * An OTLP/HTTP trace receiver on loopback, the stand-in for an OpenTelemetry Collector: it accepts
 * `POST /v1/traces` with a JSON `ExportTraceServiceRequest` (gzip or not), as the OTLP/HTTP JSON
 * exporters send it, and keeps the spans for tests to read. Binary protobuf is answered 415 (it is
 * not decoded here: send JSON), anything malformed 400, as a collector would.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { decodeTraces, OtlpDecodeError, type ReceivedSpan } from './decode';

export type { AttributeValue, ReceivedSpan } from './decode';

export interface OtlpReceiver {
  /** Base URL, e.g. http://127.0.0.1:43123 (spans go to `${url}/v1/traces`). */
  readonly url: string;
  /** Every span received so far, in arrival order. */
  spans(): readonly ReceivedSpan[];
  /** Export requests received (accepted or not). */
  readonly requests: number;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 16 * 1024 * 1024;

export async function startOtlpReceiver(options: { port?: number; host?: string } = {}): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  let requests = 0;
  const server = createServer((req, res) => {
    const answer = (status: number, body: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    if (req.method !== 'POST' || new URL(req.url ?? '/', 'http://x').pathname !== '/v1/traces') return answer(404, { message: 'only POST /v1/traces is served here' });
    requests++;
    readBody(req).then(
      (raw) => {
        const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim();
        if (type !== 'application/json') return answer(415, { message: `content-type ${type || '(none)'} is not decoded here: send OTLP/HTTP JSON (application/json)` });
        try {
          const text = (req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw).toString('utf8');
          spans.push(...decodeTraces(JSON.parse(text)));
        } catch (err) {
          if (err instanceof OtlpDecodeError || err instanceof SyntaxError) return answer(400, { message: `not an OTLP JSON trace export: ${err.message}` });
          throw err;
        }
        answer(200, { partialSuccess: {} });
      },
      (err: unknown) => answer(413, { message: (err as Error).message }),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host ?? '127.0.0.1'}:${port}`,
    spans: () => spans,
    get requests() {
      return requests;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new Error(`export request larger than ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}
