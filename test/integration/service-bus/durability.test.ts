import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ServiceBusClient } from '@azure/service-bus';
import { Proc, spawnServiceBus } from './cli-process';
import { CONFIG } from './helpers';

describe('opstream emulator service-bus: --data-dir journal survives kill -9', () => {
  let dir: string;
  const procs: Proc[] = [];
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'service-bus-durable-'));
    fs.writeFileSync(path.join(dir, 'Config.json'), JSON.stringify(CONFIG));
  });
  afterAll(async () => {
    for (const p of procs) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    await Promise.all(procs.map((p) => p.exited));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('keeps every acknowledged send, dead letters, deferred and scheduled messages and sequence numbers', async () => {
    const args = ['--port', '0', '--config', path.join(dir, 'Config.json'), '--data-dir', path.join(dir, 'data')];
    const first = await spawnServiceBus(args);
    procs.push(first);
    expect(first.connectionString).toMatch(
      /^Endpoint=sb:\/\/127\.0\.0\.1:\d+;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=SAS_KEY_VALUE;UseDevelopmentEmulator=true$/,
    );
    const c1 = new ServiceBusClient(first.connectionString, { retryOptions: { maxRetries: 0, timeoutInMs: 3000 } });
    const s1 = c1.createSender('orders');
    await s1.sendMessages({ body: 'dead', messageId: 'dead' });
    const r1 = c1.createReceiver('orders');
    const [dead] = await r1.receiveMessages(1, { maxWaitTimeInMs: 2000 });
    await r1.deadLetterMessage(dead, { deadLetterReason: 'why', deadLetterErrorDescription: 'because' });
    const [scheduledSeq] = await s1.scheduleMessages({ body: 'scheduled' }, new Date(Date.now() + 3600_000));
    // a stream of sends, killed mid-flight: every acknowledged one must be there after the restart
    const acked: string[] = [];
    let killed = false;
    let next = 0;
    const worker = async (): Promise<void> => {
      while (!killed) {
        const id = `w-${next++}`;
        try {
          await s1.sendMessages({ body: id, messageId: id });
        } catch {
          return;
        }
        if (!killed) acked.push(id);
        if (acked.length >= 200 && !killed) {
          killed = true;
          first.child.kill('SIGKILL');
        }
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    expect((await first.exited).signal).toBe('SIGKILL');
    await c1.close().catch(() => undefined);

    const second = await spawnServiceBus(args);
    procs.push(second);
    const c2 = new ServiceBusClient(second.connectionString, { retryOptions: { maxRetries: 1, timeoutInMs: 5000 } });
    const r2 = c2.createReceiver('orders', { receiveMode: 'receiveAndDelete' });
    const peeked = await r2.peekMessages(1, { fromSequenceNumber: scheduledSeq });
    expect(peeked.map((p) => [p.body, p.state])).toEqual([['scheduled', 'scheduled']]);
    const got = new Set<string>();
    for (;;) {
      const msgs = await r2.receiveMessages(100, { maxWaitTimeInMs: 300 });
      if (!msgs.length) break;
      for (const m of msgs) got.add(String(m.body));
    }
    for (const id of acked) expect(got).toContain(id);
    const dlq = c2.createReceiver('orders', { subQueueType: 'deadLetter', receiveMode: 'receiveAndDelete' });
    const [d] = await dlq.receiveMessages(1, { maxWaitTimeInMs: 2000 });
    expect([d.messageId, d.deadLetterReason, d.deadLetterErrorDescription]).toEqual(['dead', 'why', 'because']);
    await c2.createSender('orders').sendMessages({ body: 'after-restart' });
    const [fresh] = await c2.createReceiver('orders', { receiveMode: 'receiveAndDelete' }).receiveMessages(1, { maxWaitTimeInMs: 2000 });
    expect(fresh.sequenceNumber!.toNumber()).toBeGreaterThan(scheduledSeq.toNumber() + acked.length);
    await c2.close();
    second.child.kill('SIGTERM');
    expect((await second.exited).code).toBe(0);
  }, 45_000);

  it('keeps the rules added and removed through the rule manager across a kill -9, instead of the Config.json ones', async () => {
    const dataDir = path.join(dir, 'rules-data');
    const args = ['--port', '0', '--config', path.join(dir, 'Config.json'), '--data-dir', dataDir];
    const first = await spawnServiceBus(args);
    procs.push(first);
    const c1 = new ServiceBusClient(first.connectionString, { retryOptions: { maxRetries: 0, timeoutInMs: 3000 } });
    const rm = c1.createRuleManager('events', 'all');
    await rm.createRule('heavy', { sqlExpression: 'weight > 10' }, { sqlExpression: "SET class = 'heavy'; SET sys.To = 'dock'" });
    await rm.createRule('stamped', { applicationProperties: { at: new Date(1_700_000_000_000) } });
    await rm.deleteRule('$Default');
    // a rule change is acknowledged once it is durable: killed right after, it is still there
    first.child.kill('SIGKILL');
    expect((await first.exited).signal).toBe('SIGKILL');
    await c1.close().catch(() => undefined);

    for (let round = 0; round < 2; round++) {
      // the second round reads them from the snapshot the first restart wrote
      const next = await spawnServiceBus(args);
      procs.push(next);
      const c = new ServiceBusClient(next.connectionString, { retryOptions: { maxRetries: 1, timeoutInMs: 5000 } });
      const rules: [string, unknown, unknown][] = [];
      for await (const r of c.createRuleManager('events', 'all').listRules()) rules.push([r.name, r.filter, r.action.sqlExpression]);
      expect(rules).toEqual([
        ['heavy', { sqlExpression: 'weight > 10' }, "SET class = 'heavy'; SET sys.To = 'dock'"],
        ['stamped', expect.objectContaining({ applicationProperties: { at: new Date(1_700_000_000_000) } }), undefined],
      ]);
      await c.createSender('events').sendMessages([
        { body: round, messageId: `light-${round}`, applicationProperties: { weight: 1 } },
        { body: round, messageId: `heavy-${round}`, applicationProperties: { weight: 20 } },
        { body: round, messageId: `stamped-${round}`, applicationProperties: { at: new Date(1_700_000_000_000) } },
      ]);
      const r = c.createReceiver('events', 'all', { receiveMode: 'receiveAndDelete' });
      const got: [string | number | undefined, unknown, string | undefined][] = [];
      while (got.length < 2) {
        for (const m of await r.receiveMessages(10, { maxWaitTimeInMs: 1000 }))
          got.push([m.messageId as string, m.applicationProperties?.class, m.to]);
      }
      expect(got).toEqual([
        [`heavy-${round}`, 'heavy', 'dock'],
        [`stamped-${round}`, undefined, undefined],
      ]);
      await c.close();
      next.child.kill('SIGTERM');
      expect((await next.exited).code).toBe(0);
    }
  }, 45_000);
});
