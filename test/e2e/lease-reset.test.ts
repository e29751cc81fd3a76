import { randomUUID } from 'crypto';
import { effectivePartitionKey, rangeContains } from '../../src/changefeed/util/epk';
import { runCli } from '../helpers/cli';
import { startRunningInstance, type RunningInstance } from '../helpers/running-instance';
import { uniqueName, waitFor } from '../helpers/wait-for';

interface ResetJson {
  leaseToken: string;
  dryRun: boolean;
  action: string;
  owner: string | null;
  to: string;
  from: string | null;
  continuation: string | null;
  done?: boolean;
}

interface LeaseDoc {
  properties?: Record<string, string>;
}

const lsn = (etag: string | null): number => (etag === null ? 0 : Number(etag.replace(/"/g, '')));

/**
 * `opstream leases reset`: a lease's position moved to a time, to now or to the beginning, by its
 * live owner at its next renewal (it releases with the new position in one write), or directly
 * when nobody reads the range. The CLI, a running instance, the Cosmos emulator (whose change feed
 * answers If-Modified-Since, as the service does), the CS simulator.
 */
describe('opstream leases reset: moving a lease position', () => {
  jest.setTimeout(120_000);
  let instance: RunningInstance;
  beforeAll(async () => {
    instance = await startRunningInstance();
  });
  afterAll(() => instance?.close());

  interface LeaseRow {
    leaseToken: string;
    owner: string | null;
    continuation: string | null;
    range: { min: string; max: string };
  }

  /** The leases as `opstream leases --json` reads them (the product's own way to the lease container). */
  async function leases(): Promise<LeaseRow[]> {
    const listed = await runCli(['leases', '--json', '--no-lag'], instance.cliEnv);
    return (JSON.parse(listed.stdout) as { leases: LeaseRow[] }).leases;
  }

  async function lease(token: string): Promise<LeaseRow> {
    return (await leases()).find((l) => l.leaseToken === token) as LeaseRow;
  }

  /** The lease document's properties, read as the lease container holds them. */
  async function rawProperties(token: string): Promise<Record<string, string>> {
    const { resources } = await instance.database
      .container(instance.config.leases.container)
      .items.query<LeaseDoc>({ query: 'SELECT * FROM c WHERE c.LeaseToken = @t', parameters: [{ name: '@t', value: token }] })
      .fetchAll();
    if (!resources[0]) throw new Error(`lease ${token} not found in container ${instance.config.leases.container}`);
    return resources[0].properties ?? {};
  }

  it('to a time (dry run), to now with a live owner, to the beginning once nobody owns it', async () => {
    const sub = randomUUID();
    const token = ((await leases()).find((l) => rangeContains(l.range, effectivePartitionKey(sub))) as LeaseRow).leaseToken;
    await instance.frontend.registerSubscription(sub, randomUUID());
    const before = new Date().toISOString();
    const op = await instance.frontend.createCluster(sub, 'rg', uniqueName('reset'));
    expect(await instance.terminal(op)).toBe('Succeeded');
    await waitFor(async () => lsn((await lease(token)).continuation) > 0, { timeoutMs: 20_000, describe: () => 'a checkpoint' });

    // A time before the create: the position moves back to just before its first change.
    const dry = await runCli(['leases', 'reset', token, '--to', before, '--dry-run', '--json'], instance.cliEnv);
    expect(dry.stderr).toBe('');
    expect(dry.code).toBe(0);
    const planned = JSON.parse(dry.stdout) as ResetJson;
    expect(planned).toMatchObject({
      leaseToken: token,
      dryRun: true,
      action: 'request',
      owner: instance.config.changefeed.instanceName,
      to: before,
    });
    expect(lsn(planned.continuation)).toBeLessThan(lsn(planned.from));
    expect(await rawProperties(token)).not.toHaveProperty('continuationResetTo');

    const unconfirmed = await runCli(['leases', 'reset', token, '--to', 'now'], instance.cliEnv);
    expect(unconfirmed.code).toBe(2);
    expect(unconfirmed.stderr).toContain('not confirmed; pass --yes');

    const now = await runCli(['leases', 'reset', token, '--to', 'now', '--yes', '--json'], instance.cliEnv);
    expect(now.stderr).toBe('');
    expect(now.code).toBe(0);
    const moved = JSON.parse(now.stdout) as ResetJson;
    expect(moved).toMatchObject({ action: 'request', dryRun: false, done: true });
    expect(await rawProperties(token)).not.toHaveProperty('continuationResetTo');
    expect(lsn((await lease(token)).continuation)).toBeGreaterThanOrEqual(lsn(moved.continuation));
    // The range is read on from there: a create in it completes.
    const next = await instance.frontend.createCluster(sub, 'rg', uniqueName('after-reset'));
    expect(await instance.terminal(next)).toBe('Succeeded');

    // Nobody reads the range once the instance stopped (its leases released): written at once.
    await instance.app.stop();
    const direct = await runCli(['leases', 'reset', token, '--to', 'beginning', '--yes', '--json'], instance.cliEnv);
    expect(direct.stderr).toBe('');
    expect(direct.code).toBe(0);
    expect(JSON.parse(direct.stdout)).toMatchObject({ action: 'write', owner: null, continuation: null, done: true });
    expect((await lease(token)).continuation).toBeNull();

    const bad = await runCli(['leases', 'reset', token, '--to', 'yesterday'], instance.cliEnv);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe('opstream: --to yesterday: expected beginning, now, or an ISO 8601 time such as 2026-12-05T08:00:00Z\n');
  });
});
