import { createHmac } from 'node:crypto';
import { CosmosEmulator } from '@opstream/cosmos-emulator';

/**
 * Hand-made requests for what the SDK would never send (malformed bodies, bad headers, old range ids)
 * and for the admin API. Signs like the SDK: HMAC-SHA256 over verb, resource type, link and date.
 */
export interface RawResponse {
  status: number;
  headers: Headers;
  text: string;
  json: unknown;
}

function resourceOf(path: string): { type: string; link: string } {
  const decode = (s: string): string => {
    try {
      return decodeURIComponent(s);
    } catch {
      return s;
    }
  };
  const segs = path
    .split('/')
    .filter((s) => s !== '')
    .map(decode);
  const n = segs.length;
  if (n === 0) return { type: '', link: '' };
  if (n % 2 === 0) return { type: segs[n - 2], link: segs.join('/') };
  return { type: segs[n - 1], link: segs.slice(0, n - 1).join('/') };
}

export function signature(key: string, method: string, path: string, date: string): string {
  const { type, link } = resourceOf(path);
  const payload = `${method.toLowerCase()}\n${type.toLowerCase()}\n${link}\n${date.toLowerCase()}\n\n`;
  const sig = createHmac('sha256', Buffer.from(key, 'base64')).update(payload).digest('base64');
  return encodeURIComponent(`type=master&ver=1.0&sig=${sig}`);
}

export async function rawRequest(
  emu: Pick<CosmosEmulator, 'endpoint' | 'key'>,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: string | Buffer; sign?: boolean; key?: string } = {},
): Promise<RawResponse> {
  const date = new Date().toUTCString();
  const headers: Record<string, string> = { 'x-ms-date': date, 'x-ms-version': '2020-07-15', ...options.headers };
  if (options.sign !== false) headers.authorization = signature(options.key ?? emu.key, method, path, date);
  const res = await fetch(new URL(path.replace(/^\//, ''), emu.endpoint), { method, headers, body: options.body });
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

export async function adminRequest(
  emu: Pick<CosmosEmulator, 'endpoint' | 'key'>,
  method: string,
  path: string,
  body?: unknown,
  bearer: string | null = emu.key,
): Promise<RawResponse> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (bearer !== null) headers.authorization = `Bearer ${bearer}`;
  const res = await fetch(new URL(`_admin/${path}`, emu.endpoint), {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: text ? JSON.parse(text) : undefined };
}
