import { createHmac, timingSafeEqual } from 'node:crypto';
import { unauthorized } from './errors';

/**
 * Master-key authorization as Cosmos checks it: the `authorization` header is
 * `type=master&ver=1.0&sig=<base64 HMAC-SHA256>` (URL-encoded) over
 * `verb\nresourceType\nresourceLink\nx-ms-date\n\n` (verb, type and date lower-cased) with the
 * base64-decoded key. Admin calls use `Authorization: Bearer <master key>` instead.
 */
export class MasterKeyAuth {
  private readonly keyBytes: Buffer;

  constructor(readonly masterKey: string) {
    this.keyBytes = Buffer.from(masterKey, 'base64');
    if (this.keyBytes.length === 0) throw new Error('The master key must be a non-empty base64 string.');
  }

  /** The resource type and link a request signs, derived from its decoded path segments. */
  static resourceOf(segments: readonly string[]): { type: string; link: string } {
    const n = segments.length;
    if (n === 0) return { type: '', link: '' };
    // container operations (`…/colls/<c>/operations/partitionkeydelete`) are signed as the container
    if (n === 6 && segments[2] === 'colls' && segments[4] === 'operations') return { type: 'colls', link: segments.slice(0, 4).join('/') };
    // an offer is signed by its id alone, lower-cased (the SDK's offer links are `offers/<id>`)
    if (n === 2 && segments[0] === 'offers') return { type: 'offers', link: segments[1].toLowerCase() };
    if (n % 2 === 0) return { type: segments[n - 2], link: segments.join('/') };
    return { type: segments[n - 1], link: segments.slice(0, n - 1).join('/') };
  }

  sign(verb: string, resourceType: string, resourceLink: string, date: string): string {
    const payload = `${verb.toLowerCase()}\n${resourceType.toLowerCase()}\n${resourceLink}\n${date.toLowerCase()}\n\n`;
    return createHmac('sha256', this.keyBytes).update(payload).digest('base64');
  }

  /** Throws 401 with the reason unless the request is signed with this key. */
  verify(method: string, segments: readonly string[], headers: Record<string, string>): void {
    const raw = headers['authorization'];
    if (!raw) throw unauthorized('Required header authorization is missing. Sign requests with the emulator master key.');
    const date = headers['x-ms-date'] ?? headers['date'];
    if (!date) throw unauthorized('Required header x-ms-date is missing: the signature must cover the request date.');
    let token: string;
    try {
      token = decodeURIComponent(raw);
    } catch {
      throw unauthorized('The authorization header is not URL-encoded correctly.');
    }
    const fields = new URLSearchParams(token);
    const type = fields.get('type');
    const sig = token.includes('&sig=') ? token.slice(token.indexOf('&sig=') + 5) : fields.get('sig');
    if (type !== 'master' || !sig) {
      throw unauthorized(
        `The authorization token must be of the form type=master&ver=1.0&sig=<signature>; got type=${type ?? '(none)'}. Only master-key authorization is supported.`,
      );
    }
    const { type: resourceType, link } = MasterKeyAuth.resourceOf(segments);
    const expected = Buffer.from(this.sign(method, resourceType, link, date), 'utf8');
    const given = Buffer.from(sig, 'utf8');
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) {
      const payload = `${method.toLowerCase()}\\n${resourceType.toLowerCase()}\\n${link}\\n${date.toLowerCase()}\\n\\n`;
      throw unauthorized(
        `The input authorization token can't serve the request. The wrong key is being used or the expected payload is not built as per the protocol. Server used the following payload to sign: '${payload}'`,
      );
    }
  }

  /** Admin calls: `Authorization: Bearer <master key>`. */
  verifyAdmin(headers: Record<string, string>): void {
    const raw = headers['authorization'] ?? '';
    const m = /^Bearer\s+(.+)$/i.exec(raw.trim());
    const given = Buffer.from(m ? m[1] : '', 'utf8');
    const expected = Buffer.from(this.masterKey, 'utf8');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      throw unauthorized('Admin calls need the header "Authorization: Bearer <master key>" with the emulator\'s master key.');
    }
  }
}
