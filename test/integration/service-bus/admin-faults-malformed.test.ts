import * as net from 'node:net';
import { ServiceBusClient, ServiceBusError } from '@azure/service-bus';
import { CONFIG, Harness, startHarness } from './helpers';
import { startServiceBus } from '@opstream/service-bus-emulator';

async function admin(
  h: Harness,
  method: string,
  path: string,
  body?: unknown,
  key = h.emu.adminKey,
): Promise<{ status: number; json: unknown }> {
  const res = await fetch(`${h.emu.adminUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? (JSON.parse(text) as unknown) : undefined };
}

describe('service bus emulator: admin API, faults, malformed input', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  it('needs the admin key, and shows counters and entity stats', async () => {
    expect((await admin(h, 'GET', '/counters', undefined, 'wrong')).status).toBe(401);
    await h.client.createSender('orders').sendMessages([{ body: 1 }, { body: 2 }]);
    await h.client.createSender('orders').scheduleMessages({ body: 3 }, new Date(Date.now() + 3600_000));
    const stats = (await admin(h, 'GET', '/entities')).json as { entities: { path: string; active?: number; scheduled?: number }[] };
    const orders = stats.entities.find((e) => e.path === 'orders')!;
    expect([orders.active, orders.scheduled]).toEqual([2, 1]);
    const counters = (await admin(h, 'GET', '/counters')).json as { sent: number; managementByOperation: Record<string, number> };
    expect(counters.sent).toBeGreaterThanOrEqual(2);
    expect(counters.managementByOperation['schedule-message']).toBe(1);
    const r = h.client.createReceiver('orders', { receiveMode: 'receiveAndDelete' });
    expect(await r.receiveMessages(2, { maxWaitTimeInMs: 2000 })).toHaveLength(2);
    await r.close();
  });

  it('server-busy is retried by the SDK; refuse-send fails the send; a dropped connection is recovered', async () => {
    expect((await admin(h, 'PUT', '/faults', { kind: 'server-busy', entity: '^orders$', count: 1 })).status).toBe(200);
    // a send caught by the drop waits for its operation timeout before the SDK retries on a new connection
    const client = new ServiceBusClient(h.emu.connectionString, { retryOptions: { maxRetries: 3, retryDelayInMs: 20, timeoutInMs: 1500 } });
    const s = client.createSender('orders');
    await s.sendMessages({ body: 'after-busy' });
    expect(h.emu.counters().faultServerBusy).toBe(1);
    h.emu.setFaults({ kind: 'refuse-send', count: 1 });
    const err = await s.sendMessages({ body: 'refused' }).catch((e: unknown) => e);
    expect((err as ServiceBusError).code).toBe('QuotaExceeded');
    expect(h.emu.dropConnections()).toBeGreaterThanOrEqual(1);
    await s.sendMessages({ body: 'after-drop' });
    h.emu.setFaults({ kind: 'latency', latencyMs: 150, count: 1 });
    const t0 = Date.now();
    await s.sendMessages({ body: 'slow' });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(140);
    expect((await admin(h, 'DELETE', '/faults')).status).toBe(204);
    const r = client.createReceiver('orders', { receiveMode: 'receiveAndDelete' });
    const bodies: unknown[] = [];
    while (bodies.length < 3) bodies.push(...(await r.receiveMessages(3, { maxWaitTimeInMs: 1000 })).map((m) => m.body));
    expect(bodies).toEqual(['after-busy', 'after-drop', 'slow']);
    await client.close();
  });

  it('answers an unknown entity with amqp:not-found (MessagingEntityNotFound) and survives garbage bytes', async () => {
    const err = await h.client
      .createSender('no-such-queue')
      .sendMessages({ body: 1 })
      .catch((e: unknown) => e);
    expect((err as ServiceBusError).code).toBe('MessagingEntityNotFound');
    const rerr = await h.client
      .createReceiver('no-such-queue')
      .receiveMessages(1, { maxWaitTimeInMs: 300 })
      .catch((e: unknown) => e);
    expect((rerr as ServiceBusError).code).toBe('MessagingEntityNotFound');
    const port = Number(/:(\d+);/.exec(h.emu.connectionString)![1]);
    for (const payload of [
      Buffer.from('GET / HTTP/1.1\r\n\r\n'),
      Buffer.from([0x41, 0x4d, 0x51, 0x50, 0, 1, 0, 0, 0xff, 0xff, 0xff, 0xff, 1, 2, 3]),
      Buffer.alloc(64, 0xee),
    ]) {
      await new Promise<void>((resolve) => {
        const sock = net.connect(port, '127.0.0.1', () => sock.write(payload));
        sock.on('error', () => resolve());
        sock.on('close', () => resolve());
        sock.setTimeout(1000, () => sock.destroy());
      });
    }
    await h.client.createSender('orders').sendMessages({ body: 'still-alive' });
    const r = h.client.createReceiver('orders', { receiveMode: 'receiveAndDelete' });
    expect((await r.receiveMessages(1, { maxWaitTimeInMs: 2000 })).map((m) => m.body)).toEqual(['still-alive']);
    await r.close();
  });

  it('refuses a bad Config.json with the reason', async () => {
    await expect(
      startServiceBus({
        port: 0,
        config: { UserConfig: { Namespaces: [{ Name: 'x', Queues: [{ Name: 'q', Properties: { LockDuration: '1 minute' } }] }] } },
      }),
    ).rejects.toThrow(/ISO 8601/);
    await expect(startServiceBus({ port: 0, config: CONFIG, host: '0.0.0.0' as '127.0.0.1' })).rejects.toThrow(/loopback/);
  });
});
