import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { askOwner, OWNER_ANSWER_BYTES } from '../../../src/inspect/explain/ask-owner';

/**
 * What `opstream explain` reads of an owner's answer (issue 39): it used to read any length and follow
 * redirects. Now at most 256 KiB, with a clear error past it, and a redirect is an error, never followed
 * with the token. Both servers listen on loopback.
 */
describe('explain reads an ops server answer to a limit and follows no redirect', () => {
  let owner: Server;
  let elsewhere: Server;
  let ownerUrl: string;
  let elsewhereUrl: string;
  let answer: (res: import('node:http').ServerResponse) => void;
  const reachedElsewhere: IncomingMessage[] = [];

  const listen = async (server: Server): Promise<string> => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };

  beforeAll(async () => {
    owner = createServer((_req, res) => answer(res));
    elsewhere = createServer((req, res) => {
      reachedElsewhere.push(req);
      res.end('{}');
    });
    ownerUrl = await listen(owner);
    elsewhereUrl = await listen(elsewhere);
  });
  afterAll(async () => {
    owner.closeAllConnections();
    await Promise.all([owner, elsewhere].map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  });

  it('an answer past 256 KiB is an error naming the limit, and the rest is not read', async () => {
    let written = 0;
    answer = (res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      // Far more than the limit, written as it is read: a reader that never stops would take it all.
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      const more = (): void => {
        while (written < 64 * 2 ** 20 && res.write(chunk)) written += chunk.length;
        if (written < 64 * 2 ** 20) res.once('drain', more);
        else res.end();
      };
      res.write('{"pad":"');
      more();
    };
    await expect(askOwner(ownerUrl, 'op-1', 'a-token-of-sixteen-chars')).rejects.toThrow(
      `its ops server at ${ownerUrl} answered more than 256 KiB, the most explain reads of an answer`,
    );
    expect(OWNER_ANSWER_BYTES).toBe(256 * 1024);
    expect(written).toBeLessThan(16 * 2 ** 20);
  });

  it('a redirect is an error, and the token does not follow it', async () => {
    answer = (res) => {
      res.writeHead(302, { location: `${elsewhereUrl}/api/operations/op-1` });
      res.end();
    };
    await expect(askOwner(ownerUrl, 'op-1', 'a-token-of-sixteen-chars')).rejects.toThrow(/answered 302/);
    expect(reachedElsewhere).toHaveLength(0);
  });

  it('a small answer is read as JSON', async () => {
    answer = (res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"state":"queued"}');
    };
    await expect(askOwner(ownerUrl, 'op-1', undefined)).resolves.toEqual({ state: 'queued' });
  });
});
