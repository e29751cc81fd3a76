import { randomUUID } from 'crypto';
import { createServer, type Server } from 'http';
import type { AddressInfo } from 'net';
import { clusterArmId, operationStatusId } from '@opstream/frontend-simulator';
import { startHarness, waitForStatus, type Harness } from '../helpers/opstream-harness';
import { waitFor } from '../helpers/wait-for';

/**
 * Guarantee: notification work takes a bounded share of the workers. 200 terminal operations whose
 * ARM endpoint accepts the connection and never answers are waiting to be notified; new operations
 * still go through their whole lifecycle promptly, no more notifications hang at once than
 * notifications.concurrency (by default a quarter of pipeline.concurrency) allows one origin (half of
 * it), and notifications to another origin are delivered meanwhile.
 */
const HANGING = 200;
const CONCURRENCY = 8;
const NOTIFICATION_SHARE = CONCURRENCY / 4;
const PER_ORIGIN = Math.ceil(NOTIFICATION_SHARE / 2);

describe('guarantees: new operations keep flowing while 200 ARM notifications hang', () => {
  let h: Harness;
  let hang: { url: string; open: number; maxOpen: number; received: number; close(): Promise<void> };

  beforeAll(async () => {
    const state = { open: 0, maxOpen: 0, received: 0 };
    const server: Server = createServer((req) => {
      state.received++;
      state.open++;
      state.maxOpen = Math.max(state.maxOpen, state.open);
      req.resume();
      req.socket.once('close', () => state.open--);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    hang = Object.assign(state, {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      close: () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    });
    h = await startHarness({ settings: { 'pipeline.concurrency': CONCURRENCY } });
  });
  afterAll(async () => {
    // The hanging attempts fail at once, so the instances stop without waiting for them.
    await hang?.close();
    await h?.close();
  });

  it('new clusters are created within 30 s and ARM is told of them while at most half of notifications.concurrency hang on the other endpoint', async () => {
    const now = new Date().toISOString();
    const operations = h.database.container('Operations');
    for (let i = 0; i < HANGING; i += 20) {
      await Promise.all(
        Array.from({ length: 20 }, async () => {
          const sub = randomUUID();
          const id = randomUUID();
          await operations.items.create({
            id,
            partitionKey: sub,
            request: 'Create',
            externalId: clusterArmId(sub, 'rg-hang', `hang-${id.slice(0, 8)}`),
            internalId: '',
            status: 'Succeeded',
            startTime: now,
            lastTransitionTime: now,
            operationId: operationStatusId(sub, 'eastus', id),
            notificationUri: `${hang.url}/notify/${id}`,
          });
        }),
      );
    }
    await waitFor(() => hang.open >= PER_ORIGIN, { timeoutMs: 30_000, describe: () => `notifications to hang (${hang.open} open)` });

    const sub = randomUUID();
    await h.frontend.registerSubscription(sub, randomUUID());
    const started = Date.now();
    const ops = await Promise.all([1, 2, 3].map((n) => h.frontend.createCluster(sub, 'rg-flowing', `flowing-${n}`)));
    await Promise.all(ops.map((op) => waitForStatus(h, op, 'Succeeded', 30_000)));
    expect(Date.now() - started).toBeLessThan(30_000);
    // ARM's own receiver is another origin: its notifications go out while the other one still hangs.
    expect(await Promise.all(ops.map((op) => h.terminal(op, 30_000)))).toEqual(['Succeeded', 'Succeeded', 'Succeeded']);
    expect(hang.open).toBeGreaterThanOrEqual(1);
    expect(hang.maxOpen).toBeLessThanOrEqual(PER_ORIGIN);
    expect(hang.received).toBeGreaterThanOrEqual(PER_ORIGIN);
  });
});
