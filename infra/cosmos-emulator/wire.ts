import { Duplex } from 'node:stream';

/**
 * What may go on the wire whatever a client sent: header values restricted to printable ASCII (the
 * service percent-encodes names in headers such as `x-ms-alt-content-path`; Node throws
 * ERR_INVALID_CHAR on anything else), and Cosmos-shaped answers to requests Node's parser refused.
 */
const UNSAFE_HEADER_CHARS = /[^\t\x20-\x7e]/gu;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** Percent-encodes every character a header value may not carry (control and non-ASCII characters). */
export function headerSafe(value: string): string {
  return value.replace(UNSAFE_HEADER_CHARS, (ch) => {
    try {
      return encodeURIComponent(ch);
    } catch {
      return '%EF%BF%BD'; // a lone surrogate: U+FFFD
    }
  });
}

/** A resource link (`dbs/<db>/colls/<c>`) as the service puts it in headers: each segment URL-encoded. */
export function encodedLink(segments: readonly string[]): string {
  return segments.map((s) => headerSafe(encodeURIComponentSafe(s))).join('/');
}

function encodeURIComponentSafe(s: string): string {
  try {
    return encodeURIComponent(s);
  } catch {
    return s; // lone surrogates: headerSafe replaces them
  }
}

/** Drops headers with invalid names and makes every value safe to write. */
export function safeHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!HEADER_NAME.test(name)) continue;
    out[name] = headerSafe(String(value));
  }
  return out;
}

function statusForParseError(code: string | undefined): { status: number; text: string; cosmos: string } {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return { status: 431, text: 'Request Header Fields Too Large', cosmos: 'RequestHeaderFieldsTooLarge' };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
    case 'HPE_REQUEST_TIMEOUT':
      return { status: 408, text: 'Request Timeout', cosmos: 'RequestTimeout' };
    default:
      return { status: 400, text: 'Bad Request', cosmos: 'BadRequest' };
  }
}

/** `clientError`: answer a malformed request with a Cosmos-shaped error and close, never throw. */
export function answerClientError(err: Error, socket: Duplex): void {
  try {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ECONNRESET' || code === 'EPIPE' || !socket.writable) {
      socket.destroy();
      return;
    }
    const { status, text, cosmos } = statusForParseError(code);
    const body = JSON.stringify({ code: cosmos, message: `The request could not be parsed (${headerSafe(code ?? err.message)}).` });
    socket.end(
      `HTTP/1.1 ${status} ${text}\r\ncontent-type: application/json\r\nconnection: close\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  } catch {
    socket.destroy();
  }
}
