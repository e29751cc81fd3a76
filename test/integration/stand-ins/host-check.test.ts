import { request } from 'node:http';
import { startClustersServiceSimulator } from '@opstream/clusters-service-simulator';
import { startCosmosEmulator } from '@opstream/cosmos-emulator';
import { startNotificationReceiver } from '@opstream/frontend-simulator';
import { startOtlpReceiver } from '@opstream/otlp-receiver';
import { startTokenService } from '@opstream/token-service';

/**
 * DNS rebinding (issue 39): the stand-ins `npm start` runs answered any `Host`, so a web page open in a
 * browser on the machine could point its own name at 127.0.0.1 and read or drive them (the Cosmos
 * emulator's data, the Clusters Service simulator). Now each answers only loopback names, the address it
 * was reached at and the names it was given, and 403 to anything else. Every request goes to 127.0.0.1;
 * only its Host header changes.
 */
interface StandIn {
  url: string;
  close(): Promise<void>;
}

const STAND_INS: Array<[string, (allowedHosts: string[]) => Promise<StandIn>]> = [
  [
    'Cosmos DB emulator',
    async (allowedHosts) => {
      const c = await startCosmosEmulator({ port: 0, allowedHosts });
      return { url: c.endpoint.replace(/\/$/, ''), close: () => c.close() };
    },
  ],
  ['Clusters Service simulator', (allowedHosts) => startClustersServiceSimulator({ allowedHosts })],
  ['token service', (allowedHosts) => startTokenService({ allowedHosts })],
  ['ARM notification receiver', (allowedHosts) => startNotificationReceiver({ allowedHosts })],
  ['OTLP receiver', (allowedHosts) => startOtlpReceiver({ allowedHosts })],
];

/** The status of a GET to `url` (on 127.0.0.1) with `host` as its Host header. */
function statusWithHost(url: string, host: string | undefined): Promise<number> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path: '/', method: 'GET', setHost: false, headers: host === undefined ? {} : { host } },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe.each(STAND_INS)('the %s answers loopback Host names only', (_name, start) => {
  let standIn: StandIn;
  let port: string;
  beforeAll(async () => {
    standIn = await start(['cosmos.test.internal']);
    port = new URL(standIn.url).port;
  });
  afterAll(() => standIn.close());

  it.each(['evil.example', 'attacker.example:80', '127.0.0.1.nip.io', '10.0.0.1', 'localhost@evil.example', ''])(
    'Host %p gets 403',
    async (host) => {
      expect(await statusWithHost(standIn.url, host.replace(/:80$/, `:${port}`))).toBe(403);
    },
  );

  it.each(['localhost', '127.0.0.1', '127.0.0.2', '[::1]', 'app.localhost', 'cosmos.test.internal', 'COSMOS.test.internal'])(
    'Host %p is answered',
    async (host) => {
      expect(await statusWithHost(standIn.url, `${host}:${port}`)).not.toBe(403);
    },
  );
});
