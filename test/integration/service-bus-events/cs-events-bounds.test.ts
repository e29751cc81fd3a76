import { PassThrough } from 'node:stream';
import { ServiceBusClient } from '@azure/service-bus';
import { startServiceBus, type ServiceBusEmulator } from '@opstream/service-bus-emulator';
import { createLogger } from '../../../src/logging/logger';
import { CsEventsReceiver } from '../../../src/service-bus/cs-events-receiver';
import type { CsStateHint } from '../../../src/pipeline/cs-hints';
import { waitFor } from '../../helpers/wait-for';
import { CONFIG, TOPIC } from './cs-events-config';

const ID = 'a'.repeat(32);
const HREF = `/api/clusters_mgmt/v1/clusters/${ID}`;

/**
 * Clusters Service events whose fields are far longer than Clusters Service sends (issue 39): 200 events
 * with a 200 KB href used to be accepted, kept by the reported states (~42 MB) and each logged. Now
 * they are dropped as invalid, and their warning is logged once per interval saying how many were left out.
 */
describe('Clusters Service events are bounded', () => {
  let bus: ServiceBusEmulator;
  beforeAll(async () => {
    bus = await startServiceBus({ port: 0, config: CONFIG });
  });
  afterAll(() => bus.close());

  it('an over-long href, id or state is invalid, and the warnings about them are rate-limited with a count', async () => {
    const stream = new PassThrough();
    const lines: Array<{ message: string; suppressed?: number }> = [];
    stream.on('data', (chunk: Buffer) =>
      chunk
        .toString()
        .split('\n')
        .filter(Boolean)
        .forEach((l) => lines.push(JSON.parse(l))),
    );
    let clock = 1_000_000;
    const events: CsStateHint[] = [];
    let invalid = 0;
    const receiver = new CsEventsReceiver({
      access: { kind: 'connection-string', connectionString: bus.connectionString },
      topic: TOPIC,
      subscription: 'opstream',
      followDelayMs: 1000,
      logger: createLogger({ stream, format: 'json', level: 'warn' }),
      now: () => clock,
      logIntervalMs: 60_000,
      onEvent: (hint) => events.push(hint),
      onInvalid: () => invalid++,
    });
    const client = new ServiceBusClient(bus.connectionString);
    const sender = client.createSender(TOPIC);
    try {
      receiver.start();
      const time = new Date().toISOString();
      const big = 'x'.repeat(200 * 1024);
      const hostile = [
        ...Array.from({ length: 20 }, (_, i) => ({ kind: 'Cluster', id: ID, href: `${HREF}${i}/node_pools/${big}`, state: 'ready', time })),
        { kind: 'Cluster', id: big, href: HREF, state: 'ready', time },
        { kind: 'Cluster', id: ID, href: HREF, state: big.slice(0, 1000), time },
      ];
      for (const body of hostile) await sender.sendMessages({ body });
      await waitFor(() => invalid === hostile.length, { describe: () => `${invalid} of ${hostile.length} invalid` });
      expect(events).toEqual([]);
      expect(receiver.hints.reported(hostile[0].href)).toBeUndefined();
      const warned = (): typeof lines => lines.filter((l) => /not a CS event/.test(l.message));
      await waitFor(() => warned().length >= 1);
      expect(warned()).toHaveLength(1);
      expect(warned()[0]).toMatchObject({ suppressed: 0 });

      // One interval later, the next invalid message is logged with the count of those left out.
      clock += 60_000;
      await sender.sendMessages({ body: { kind: 'Cluster' } });
      await waitFor(() => warned().length === 2, { describe: () => JSON.stringify(warned().map((l) => l.message)) });
      expect(warned()[1].message).toMatch(/21 more since the last such line, not logged/);
      expect(warned()[1]).toMatchObject({ suppressed: 21 });

      // What Clusters Service really sends still goes through.
      const pool = { kind: 'NodePool', id: 'np-1', href: `${HREF}/node_pools/np-1`, state: 'installing', time };
      await sender.sendMessages({ body: pool });
      await waitFor(() => events.length === 1);
      expect(receiver.hints.reported(pool.href)).toBe('installing');
    } finally {
      await sender.close();
      await client.close();
      await receiver.close();
    }
  });
});
