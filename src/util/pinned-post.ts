import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'http';
import { request as httpsRequest } from 'https';
import type { LookupFunction } from 'net';

/**
 * One POST to addresses the caller already checked, with everything bounded: it connects only to
 * `addresses` (the host name still goes in `Host` and TLS SNI, and the certificate must match it),
 * follows no redirect, gives up after `timeoutMs`, and reads at most `maxAnswerBytes` of the answer
 * before closing the connection, so an endpoint that streams forever costs a few KiB. Node's http
 * client bounds the answer's headers itself (16 KiB).
 */
export interface PinnedPost {
  url: URL;
  /** The host to name (no brackets around IPv6). */
  host: string;
  port: number;
  addresses: ReadonlyArray<{ readonly address: string; readonly family: 4 | 6 }>;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  maxAnswerBytes: number;
}

export interface PostAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  /** The start of the answer's body (at most `maxAnswerBytes`), read for answers other than 2xx only. */
  excerpt?: string;
}

/** The request got no answer: no connection, or no answer within the time allowed. */
export class PostFailedError extends Error {
  constructor(
    readonly kind: 'connection' | 'timeout',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'PostFailedError';
  }
}

export function pinnedPost(post: PinnedPost): Promise<PostAnswer> {
  const lookup: LookupFunction = (_hostname, options, callback) => {
    const wanted = post.addresses.filter((a) => !options.family || a.family === options.family);
    const list = wanted.length > 0 ? wanted : post.addresses;
    if (options.all)
      callback(
        null,
        list.map((a) => ({ address: a.address, family: a.family })),
      );
    else callback(null, list[0].address, list[0].family);
  };
  const send = post.url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<PostAnswer>((resolve, reject) => {
    let answered = false;
    const req = send({
      protocol: post.url.protocol,
      host: post.host,
      port: post.port,
      path: `${post.url.pathname}${post.url.search}`,
      method: 'POST',
      headers: { ...post.headers, 'content-length': String(Buffer.byteLength(post.body)) },
      lookup,
      // A connection of its own, closed after the answer: nothing pooled outlives the check above.
      agent: false,
    });
    // Bounds everything, the reading of the answer included; after the answer it only closes the connection.
    const timer = setTimeout(
      () => req.destroy(new PostFailedError('timeout', `no answer from ${post.url.origin} within ${post.timeoutMs} ms`)),
      post.timeoutMs,
    );
    req.on('error', (err) => {
      clearTimeout(timer);
      if (answered) return;
      reject(
        err instanceof PostFailedError ? err : new PostFailedError('connection', `${post.url.origin}: ${err.message}`, { cause: err }),
      );
    });
    req.on('response', (res: IncomingMessage) => {
      answered = true;
      const status = res.statusCode ?? 0;
      const ok = status >= 200 && status < 300;
      // The status decides: a delivery is reported at once; the body is only read to say why not.
      if (ok) resolve({ status, headers: res.headers });
      const chunks: Buffer[] = [];
      let size = 0;
      let settled = ok;
      const done = (): void => {
        clearTimeout(timer);
        if (settled) return;
        settled = true;
        resolve({ status, headers: res.headers, excerpt: Buffer.concat(chunks).toString('utf8') });
      };
      res.on('data', (chunk: Buffer) => {
        if (size >= post.maxAnswerBytes) return;
        const room = post.maxAnswerBytes - size;
        if (!ok) chunks.push(chunk.subarray(0, room));
        size += Math.min(chunk.length, room);
        if (size >= post.maxAnswerBytes) {
          done();
          res.destroy();
        }
      });
      res.on('end', done);
      res.on('close', done);
      res.on('error', done);
    });
    req.end(post.body);
  });
}
