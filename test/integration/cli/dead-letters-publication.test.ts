import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { startServiceBus, type ServiceBusEmulator } from '@opstream/service-bus-emulator';
import { runCli } from '../../helpers/cli';
import { startRunningInstance, type RunningInstance } from '../../helpers/running-instance';
import { waitFor } from '../../helpers/wait-for';
import { EVENTS_CONFIG, EVENTS_TOPIC, collect, published, type Collector } from '../service-bus-events/operation-events-helpers';

interface DeadLetterJson {
  id: string;
  partitionKey: string;
  reason: string;
  source: { container: string; id?: string };
}

/** A topic that takes messages of at most 4 KiB (MaxMessageSizeInKilobytes, as on Premium). */
const SMALL_TOPIC_CONFIG = {
  UserConfig: {
    ...EVENTS_CONFIG.UserConfig,
    Namespaces: EVENTS_CONFIG.UserConfig.Namespaces.map((n) => ({
      ...n,
      Topics: n.Topics.map((t) => (t.Name === EVENTS_TOPIC ? { ...t, Properties: { ...t.Properties, MaxMessageSizeInKilobytes: 4 } } : t)),
    })),
  },
};

/**
 * Dead letters of reason `publication` (an Operation event its topic did not take): replayed by
 * publishing the event (cut to fit, `--file`), or discarded. Through the CLI, a running instance,
 * the Cosmos emulator, the CS simulator and the Service Bus stand-in.
 */
describe('opstream dead-letters replay and discard of Operation events (reason publication)', () => {
  let bus: ServiceBusEmulator;
  let instance: RunningInstance;
  let all: Collector;
  let withBus: Record<string, string>;
  const dir = mkdtempSync(join(tmpdir(), 'opstream-dlp-'));
  beforeAll(async () => {
    bus = await startServiceBus({ port: 0, config: SMALL_TOPIC_CONFIG });
    instance = await startRunningInstance({ settings: { 'serviceBus.connectionString': bus.connectionString } });
    all = collect(bus.connectionString);
    withBus = { ...instance.cliEnv, OPSTREAM_SERVICE_BUS_CONNECTION_STRING: bus.connectionString };
  });
  afterAll(async () => {
    await all?.close();
    await instance?.close();
    await bus?.close();
  });

  /** A create that fails in CS with a message too long for the topic: its Failed event is dead-lettered. */
  async function publicationDeadLetter(name: string): Promise<{ deadLetter: DeadLetterJson; operationId: string }> {
    const sub = randomUUID();
    await instance.frontend.registerSubscription(sub, randomUUID());
    instance.cs.admin.addProvisionFailure({ code: 'OCM3001', clusterName: name, message: `quota exceeded: ${'q'.repeat(3984)}` });
    const op = await instance.frontend.createCluster(sub, 'rg', name);
    expect(await instance.terminal(op)).toBe('Failed');
    let last = '';
    const deadLetter = await waitFor(
      async () => {
        const listed = await runCli(['dead-letters', 'list', '--json'], instance.cliEnv);
        last = listed.stdout + listed.stderr;
        return (JSON.parse(listed.stdout) as DeadLetterJson[]).find((d) => d.source.id === op.operationId);
      },
      { timeoutMs: 30_000, intervalMs: 200, describe: () => `the dead letter of ${op.operationId}; last listing: ${last}` },
    );
    expect(deadLetter).toMatchObject({ reason: 'publication', source: { container: `topic:${EVENTS_TOPIC}` } });
    return { deadLetter, operationId: op.operationId };
  }

  it('replays an event: refused without Service Bus settings, refused while still too large, published once cut (--file)', async () => {
    const { deadLetter, operationId } = await publicationDeadLetter('too-big-replay');

    const noBus = await runCli(['dead-letters', 'replay', deadLetter.id], instance.cliEnv);
    expect(noBus.code).toBe(1);
    expect(noBus.stderr).toContain('set OPSTREAM_SERVICE_BUS_CONNECTION_STRING or OPSTREAM_SERVICE_BUS_NAMESPACE');

    const tooLarge = await runCli(['dead-letters', 'replay', deadLetter.id, '--yes'], withBus);
    expect(tooLarge.code).toBe(65);
    expect(tooLarge.stderr).toContain(`the event is still larger than topic ${EVENTS_TOPIC} takes`);

    const shown = await runCli(['dead-letters', 'show', deadLetter.id], withBus);
    const event = JSON.parse(shown.stdout) as { error: { message: string } };
    event.error.message = 'quota exceeded (cut by the operator)';
    const file = join(dir, 'cut.json');
    writeFileSync(file, JSON.stringify(event));
    const replayed = await runCli(['dead-letters', 'replay', deadLetter.id, '--file', file, '--yes'], withBus);
    expect(replayed.stderr).toBe('');
    expect(replayed.code).toBe(0);
    expect(replayed.stdout).toContain(`the event of Operation ${operationId}`);
    const out = await waitFor(() => published(all.messages).find((p) => p.id === operationId && p.status === 'Failed'), {
      timeoutMs: 20_000,
      describe: () => `the replayed Failed event of ${operationId}`,
    });
    expect(out.body.error).toMatchObject({ code: 'OCM3001', message: 'quota exceeded (cut by the operator)' });
    const after = JSON.parse((await runCli(['dead-letters', 'list', '--json'], withBus)).stdout) as DeadLetterJson[];
    expect(after.find((d) => d.id === deadLetter.id)).toBeUndefined();
  });

  it('discards: --dry-run deletes nothing, without --yes off a terminal nothing is deleted (exit 2), --yes --json deletes', async () => {
    const { deadLetter } = await publicationDeadLetter('too-big-discard');
    const args = ['dead-letters', 'discard', '--all', '--reason', 'publication'];

    const dry = await runCli([...args, '--dry-run', '--json'], instance.cliEnv);
    expect(dry.code).toBe(0);
    const wouldBe = JSON.parse(dry.stdout) as { dryRun: boolean; discarded: DeadLetterJson[] };
    expect(wouldBe.dryRun).toBe(true);
    expect(wouldBe.discarded.map((d) => d.id)).toContain(deadLetter.id);

    const unconfirmed = await runCli(args, instance.cliEnv);
    expect(unconfirmed.code).toBe(2);
    expect(unconfirmed.stderr).toMatch(/^opstream: discard \d+ dead letter\(s\): not confirmed; pass --yes to confirm without a terminal/);

    const listed = JSON.parse((await runCli(['dead-letters', 'list', '--json'], instance.cliEnv)).stdout) as DeadLetterJson[];
    expect(listed.map((d) => d.id)).toContain(deadLetter.id);

    const done = await runCli([...args, '--yes', '--json'], instance.cliEnv);
    expect(done.stderr).toBe('');
    expect(done.code).toBe(0);
    expect((JSON.parse(done.stdout) as { discarded: DeadLetterJson[] }).discarded.map((d) => d.id)).toContain(deadLetter.id);
    const after = JSON.parse((await runCli(['dead-letters', 'list', '--json'], instance.cliEnv)).stdout) as DeadLetterJson[];
    expect(after.filter((d) => d.reason === 'publication')).toEqual([]);

    const one = await runCli(['dead-letters', 'discard', deadLetter.id, '--yes'], instance.cliEnv);
    expect(one.code).toBe(66);
    const both = await runCli(['dead-letters', 'discard', deadLetter.id, '--all'], instance.cliEnv);
    expect(both.code).toBe(2);
  });
});
