import { ChildProcess, spawn } from 'child_process';
import { join } from 'path';
import { randomUUID } from 'crypto';
import { Harness, startHarness } from '../helpers/opstream-harness';
import { waitFor } from '../helpers/wait-for';

const CLI = join(__dirname, '..', '..', 'dist', 'src', 'cli', 'main.js');

async function leaseOwners(h: Harness): Promise<Array<string | null>> {
  const { resources } = await h.database.container('Leases').items.query('SELECT * FROM c WHERE IS_DEFINED(c.LeaseToken)').fetchAll();
  return resources.map((l) => l.Owner as string | null);
}

describe('pipeline: several instances', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  it('two instances share the leases and the work', async () => {
    const second = await h.startInstance('second');
    await waitFor(
      async () => {
        const owners = await leaseOwners(h);
        return owners.filter((o) => o === 'first').length === 2 && owners.filter((o) => o === 'second').length === 2;
      },
      { timeoutMs: 30_000, describe: () => 'leases split 2/2 between the instances' },
    );
    const handledBy = new Map<string, number>();
    for (const app of h.instances)
      app.taps.tap('transitions').subscribe(() => handledBy.set(app.instanceName, (handledBy.get(app.instanceName) ?? 0) + 1));
    const tenant = randomUUID();
    // 16 random subscriptions: all in one instance's two ranges of four has odds of 1 in 65,536 (8 gave 1 in 256).
    const subs = Array.from({ length: 16 }, () => randomUUID());
    for (const s of subs) await h.frontend.registerSubscription(s, tenant);
    const ops = await Promise.all(subs.map((s, i) => h.frontend.createCluster(s, 'rg-share', `shared-${i}`)));
    expect(await Promise.all(ops.map((op) => h.terminal(op)))).toEqual(ops.map(() => 'Succeeded'));
    expect(handledBy.get('first')).toBeGreaterThan(0);
    expect(handledBy.get('second')).toBeGreaterThan(0);
    await second.stop();
    h.instances.splice(h.instances.indexOf(second), 1);
  });

  it('an instance killed with SIGKILL mid-dispatch is taken over: every operation completes, one CS cluster per resource', async () => {
    // Hand every lease to a child process, then kill it while creates are in flight.
    const first = h.instances[0];
    await first.stop();
    h.instances.splice(0, 1);
    const env = {
      ...process.env,
      OPSTREAM_COSMOS_ENDPOINT: h.cosmos.emu.endpoint,
      OPSTREAM_COSMOS_KEY: h.cosmos.emu.key,
      OPSTREAM_COSMOS_DATABASE: h.databaseId,
      OPSTREAM_CLUSTERS_SERVICE_URL: h.cs.url,
      // ARM's notification receiver here listens on loopback (http): the development switch lets notifications reach it.
      OPSTREAM_NOTIFICATIONS_ALLOW_LOOPBACK: 'true',
      OPSTREAM_CHANGEFEED_INSTANCE_NAME: 'doomed',
      OPSTREAM_CHANGEFEED_LEASE_ACQUIRE_INTERVAL_MS: '300',
      OPSTREAM_CHANGEFEED_MAX_POLL_DELAY_MS: '100',
      OPSTREAM_CHANGEFEED_LEASE_RENEW_INTERVAL_MS: '500',
      OPSTREAM_CHANGEFEED_LEASE_EXPIRATION_MS: '3000',
      OPSTREAM_FOLLOW_INITIAL_DELAY_MS: '50',
      OPSTREAM_FOLLOW_MAX_DELAY_MS: '400',
      OPSTREAM_OPS_ADDR: '127.0.0.1:0',
      OPSTREAM_LOG_SILENT: '1',
    };
    const child: ChildProcess = spawn(process.execPath, [CLI, 'run'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    try {
      await waitFor(async () => (await leaseOwners(h)).every((o) => o === 'doomed'), {
        timeoutMs: 30_000,
        describe: () => `the child to own every lease (stderr: ${stderr.slice(-500)})`,
      });
      const sub = randomUUID();
      await h.frontend.registerSubscription(sub, randomUUID());
      h.cs.admin.addFault({ kind: 'latency', endpoint: 'POST /clusters', latencyMs: 400 });
      h.cs.admin.resetCounters();
      const ops = await Promise.all(Array.from({ length: 10 }, (_, i) => h.frontend.createCluster(sub, 'rg-kill', `kill-${i}`)));
      await waitFor(() => h.cs.admin.count('POST /clusters') >= 2, { describe: () => 'creates to be in flight' });
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
      h.cs.admin.clearFaults();
      await h.startInstance('survivor');
      const statuses = await Promise.all(ops.map((op) => h.terminal(op, 60_000)));
      expect(statuses).toEqual(ops.map(() => 'Succeeded'));
      const mine = h.cs.admin.clusters().filter((c) => (c.azure as { subscription_id?: string }).subscription_id === sub);
      expect(mine.map((c) => c.name).sort()).toEqual(ops.map((_, i) => `kill-${i}`).sort());
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});
