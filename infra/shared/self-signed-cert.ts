import { generateKeyPairSync, randomBytes, sign, X509Certificate } from 'node:crypto';
import { isIP } from 'node:net';

/**
 * A self-signed TLS certificate for a local stand-in, made with node:crypto alone (Node has no
 * certificate API, so the X.509 structure is DER-encoded here): RSA 2048, SHA-256, the given names
 * as subjectAltName, and CA:true so that a client can trust it as its own root — the way the
 * official Linux Cosmos DB emulator's certificate is trusted (`cosmos.caFile`, `NODE_EXTRA_CA_CERTS`).
 */
export interface SelfSignedCertificate {
  /** PEM certificate: what clients add to their trusted CAs. */
  cert: string;
  /** PEM PKCS#8 private key. */
  key: string;
}

export function createSelfSignedCertificate(names: string[] = ['127.0.0.1', 'localhost', '::1'], validDays = 365): SelfSignedCertificate {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const sha256WithRsa = seq(oid('1.2.840.113549.1.1.11'), tlv(0x05, Buffer.alloc(0)));
  const subject = seq(set(seq(oid('2.5.4.3'), tlv(0x0c, Buffer.from('opstream local emulator', 'utf8')))));
  const now = Date.now();
  const validity = seq(time(new Date(now - 60 * 60_000)), time(new Date(now + validDays * 86_400_000)));
  const altNames = names.map((n) => (isIP(n) ? tlv(0x87, ipBytes(n)) : tlv(0x82, Buffer.from(n, 'ascii'))));
  const extensions = tlv(
    0xa3,
    seq(
      extension('2.5.29.19', true, seq(tlv(0x01, Buffer.from([0xff])))), // basicConstraints CA:true
      extension('2.5.29.15', true, tlv(0x03, Buffer.from([0x05, 0xa0]))), // keyUsage digitalSignature, keyEncipherment, keyCertSign
      extension('2.5.29.37', false, seq(oid('1.3.6.1.5.5.7.3.1'))), // extKeyUsage serverAuth
      extension('2.5.29.17', false, seq(...altNames)),
    ),
  );
  const serial = randomBytes(16);
  serial[0] = (serial[0] & 0x3f) | 0x40; // positive, and no leading zero byte (DER forbids the padding)
  const tbs = seq(
    tlv(0xa0, integer(Buffer.from([2]))), // v3
    integer(serial),
    sha256WithRsa,
    subject,
    validity,
    subject,
    publicKey.export({ type: 'spki', format: 'der' }),
    extensions,
  );
  const signature = sign('sha256', tbs, privateKey);
  const der = seq(tbs, sha256WithRsa, tlv(0x03, Buffer.concat([Buffer.from([0]), signature])));
  const cert = `-----BEGIN CERTIFICATE-----\n${der
    .toString('base64')
    .replace(/(.{64})/g, '$1\n')
    .trimEnd()}\n-----END CERTIFICATE-----\n`;
  new X509Certificate(cert); // throws if the encoding above were wrong
  return { cert, key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
}

function tlv(tag: number, content: Buffer): Buffer {
  const n = content.length;
  const length = n < 0x80 ? Buffer.from([n]) : lengthBytes(n);
  return Buffer.concat([Buffer.from([tag]), length, content]);
}

function lengthBytes(n: number): Buffer {
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

const seq = (...items: Buffer[]): Buffer => tlv(0x30, Buffer.concat(items));
const set = (...items: Buffer[]): Buffer => tlv(0x31, Buffer.concat(items));
const integer = (value: Buffer): Buffer => tlv(0x02, value[0] & 0x80 ? Buffer.concat([Buffer.from([0]), value]) : value);

function oid(dotted: string): Buffer {
  const [a, b, ...rest] = dotted.split('.').map(Number);
  const out = [40 * a + b];
  for (const part of rest) {
    const chunk: number[] = [part & 0x7f];
    for (let v = Math.floor(part / 128); v > 0; v = Math.floor(v / 128)) chunk.unshift((v & 0x7f) | 0x80);
    out.push(...chunk);
  }
  return tlv(0x06, Buffer.from(out));
}

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return seq(oid(id), ...(critical ? [tlv(0x01, Buffer.from([0xff]))] : []), tlv(0x04, value));
}

/** UTCTime before 2050, GeneralizedTime from then on (RFC 5280 §4.1.2.5). */
function time(d: Date): Buffer {
  const iso = d.toISOString().replace(/[-:T]/g, '').slice(0, 14); // YYYYMMDDHHMMSS
  return d.getUTCFullYear() < 2050 ? tlv(0x17, Buffer.from(`${iso.slice(2)}Z`, 'ascii')) : tlv(0x18, Buffer.from(`${iso}Z`, 'ascii'));
}

function ipBytes(ip: string): Buffer {
  if (isIP(ip) === 4) return Buffer.from(ip.split('.').map(Number));
  const [head, tail = ''] = ip.split('::');
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = ip.includes('::') ? [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t] : h;
  return Buffer.concat(groups.map((g) => Buffer.from([parseInt(g, 16) >> 8, parseInt(g, 16) & 0xff])));
}
