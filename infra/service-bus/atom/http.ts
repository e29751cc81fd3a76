import * as http from 'node:http';
import { Authenticator } from '../auth';
import { AtomApi, errorResponse } from './api';
import { Unauthorized, authorize } from './authorize';

/** Request bodies above this are refused (entity descriptions are a few kilobytes). */
const MAX_BODY_BYTES = 1024 * 1024;

/**
 * The administration API's HTTP server. It does not listen itself: the AMQP listeners hand it the
 * connections that speak HTTP (over TLS, as the SDK always does, or plain for curl).
 */
export function createAtomServer(api: AtomApi, auth: Authenticator, onInternalError: (err: unknown) => void): http.Server {
  return http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const send = (status: number, body: string): void => {
      if (res.headersSent) return;
      res.writeHead(status, { 'content-type': 'application/atom+xml;type=entry;charset=utf-8', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    };
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_BODY_BYTES) chunks.push(c);
    });
    req.on('end', () => {
      if (size > MAX_BODY_BYTES) {
        const r = errorResponse(413, `The request body is larger than ${MAX_BODY_BYTES} bytes.`);
        return send(r.status, r.body);
      }
      const host = req.headers.host ?? 'localhost';
      const secure = 'encrypted' in req.socket;
      try {
        authorize(auth, req.headers.authorization, `${secure ? 'https' : 'http'}://${host}${req.url ?? '/'}`);
      } catch (err) {
        if (err instanceof Unauthorized) {
          const r = errorResponse(401, err.message);
          return send(r.status, r.body);
        }
        onInternalError(err);
        return send(500, errorResponse(500, 'Internal error.').body);
      }
      api
        .handle({
          method: req.method ?? 'GET',
          url: req.url ?? '/',
          host,
          ifMatch: req.headers['if-match'] !== undefined,
          body: Buffer.concat(chunks).toString('utf8'),
        })
        .then(
          (r) => send(r.status, r.body),
          (err: unknown) => {
            onInternalError(err);
            const r = errorResponse(500, err instanceof Error ? err.message : String(err));
            send(r.status, r.body);
          },
        );
    });
  });
}
