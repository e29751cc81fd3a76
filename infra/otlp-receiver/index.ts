/**
 * An OTLP trace receiver on loopback, the stand-in for an OpenTelemetry Collector, that keeps the
 * spans for tests to read. It takes what the three OTLP exporters send:
 * - OTLP/HTTP: `POST /v1/traces` with an `ExportTraceServiceRequest` as JSON (`application/json`)
 *   or binary protobuf (`application/x-protobuf`), gzip or not; any other type is answered 415,
 *   anything malformed 400, as a collector would;
 * - OTLP/gRPC: the TraceService Export call, on a port of its own (`grpcUrl`), plain text.
 */
import { createServer, type IncomingMessage } from 'node:http';
import { answerLoopbackHostsOnly } from '@opstream/stand-in-kit/host-guard';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import * as grpc from '@grpc/grpc-js';
import { decodeTraces, OtlpDecodeError, type ReceivedSpan } from './decode';
import { decodeProtobufTraces, encodedExportResponse, TRACE_EXPORT_PATH } from './protobuf';

export type { AttributeValue, ReceivedSpan } from './decode';

export interface OtlpReceiver {
  /** Base URL, e.g. http://127.0.0.1:43123 (spans go to `${url}/v1/traces`). */
  readonly url: string;
  /** The OTLP/gRPC address, e.g. http://127.0.0.1:43124 (an exporter's url with protocol grpc). */
  readonly grpcUrl: string;
  /** Every span received so far, in arrival order. */
  spans(): readonly ReceivedSpan[];
  /** Export requests received (accepted or not), over HTTP and gRPC. */
  readonly requests: number;
  /** Export requests received, by encoding: json, protobuf (HTTP) and grpc. */
  readonly requestsBy: Readonly<Record<'json' | 'protobuf' | 'grpc', number>>;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 16 * 1024 * 1024;

export async function startOtlpReceiver(
  options: { port?: number; host?: string; allowedHosts?: readonly string[] } = {},
): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  let requests = 0;
  const requestsBy = { json: 0, protobuf: 0, grpc: 0 };
  const server = createServer((req, res) => {
    const answer = (status: number, body: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    if (req.method !== 'POST' || new URL(req.url ?? '/', 'http://x').pathname !== '/v1/traces')
      return answer(404, { message: 'only POST /v1/traces is served here' });
    requests++;
    readBody(req).then(
      (raw) => {
        const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim();
        if (type !== 'application/json' && type !== 'application/x-protobuf') {
          return answer(415, {
            message: `content-type ${type || '(none)'} is not OTLP/HTTP: send application/json or application/x-protobuf`,
          });
        }
        try {
          const body = req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw;
          if (type === 'application/json') {
            spans.push(...decodeTraces(JSON.parse(body.toString('utf8'))));
            requestsBy.json++;
          } else {
            spans.push(...decodeProtobufTraces(body));
            requestsBy.protobuf++;
          }
        } catch (err) {
          if (err instanceof OtlpDecodeError || err instanceof SyntaxError)
            return answer(400, { message: `not an OTLP trace export: ${err.message}` });
          throw err;
        }
        if (type === 'application/x-protobuf')
          return void res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end(encodedExportResponse());
        answer(200, { partialSuccess: {} });
      },
      (err: unknown) => answer(413, { message: (err as Error).message }),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    answerLoopbackHostsOnly(server, { allowedHosts: options.allowedHosts });
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host ?? '127.0.0.1';
  const rpc = await startGrpc(host, (body) => {
    requests++;
    requestsBy.grpc++;
    spans.push(...decodeProtobufTraces(body));
  }).catch(async (err: unknown) => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    throw err;
  });
  return {
    url: `http://${host}:${port}`,
    grpcUrl: `http://${host}:${rpc.port}`,
    spans: () => spans,
    get requests() {
      return requests;
    },
    requestsBy,
    close: async () => {
      rpc.server.forceShutdown();
      await new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
    },
  };
}

/** The OTLP/gRPC TraceService on a free loopback port; bodies pass through as bytes and are decoded by `received`. */
async function startGrpc(host: string, received: (body: Buffer) => void): Promise<{ server: grpc.Server; port: number }> {
  const identity = (b: Buffer): Buffer => b;
  const definition: grpc.ServiceDefinition = {
    Export: {
      path: TRACE_EXPORT_PATH,
      requestStream: false,
      responseStream: false,
      requestSerialize: identity,
      requestDeserialize: identity,
      responseSerialize: identity,
      responseDeserialize: identity,
    },
  };
  const server = new grpc.Server();
  server.addService(definition, {
    Export: (call: grpc.ServerUnaryCall<Buffer, Buffer>, callback: grpc.sendUnaryData<Buffer>) => {
      try {
        received(call.request);
      } catch (err) {
        if (!(err instanceof OtlpDecodeError)) throw err;
        return callback({ code: grpc.status.INVALID_ARGUMENT, details: err.message });
      }
      callback(null, encodedExportResponse());
    },
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`${host.includes(':') ? `[${host}]` : host}:0`, grpc.ServerCredentials.createInsecure(), (err, bound) =>
      err ? reject(err) : resolve(bound),
    ),
  );
  return { server, port };
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
