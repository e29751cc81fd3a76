import { randomUUID } from 'crypto';
import { settingsEnv } from '@opstream/local-stack';
import { effectivePartitionKey, rangeContains } from '../../src/changefeed/util/epk';
import { runCli } from '../helpers/cli';
import { leaseOwners, leaseRanges } from '../helpers/guarantees';
import { startHarness, type Harness } from '../helpers/opstream-harness';
import { waitFor } from '../helpers/wait-for';

interface ReleaseJson {
  leaseToken: string;
  dryRun: boolean;
  action: string;
  owner: string | null;
  newOwner?: string | null;
  handedOver?: boolean;
}

/**
 * `opstream leases release`: a range handed from one live instance to another through the lease
 * document (no pod deletion): the owner releases at its next renewal, after its checkpoint, and
 * another instance takes it. Two instances, the Cosmos emulator (4 feed ranges), the CS simulator.
 */
describe('opstream leases release: handing a range over to another instance', () => {
  let h: Harness;
  let env: Record<string, string>;
  beforeAll(async () => {
    h = await startHarness();
    await h.startInstance('second');
    env = {
      ...settingsEnv({ 'cosmos.endpoint': h.cosmos.emu.endpoint, 'cosmos.key': h.cosmos.emu.key, 'cosmos.database': h.databaseId }),
      OPSTREAM_CHANGEFEED_LEASE_EXPIRATION_MS: String(h.config.changefeed.leaseExpirationMs),
      OPSTREAM_CHANGEFEED_LEASE_RENEW_INTERVAL_MS: String(h.config.changefeed.leaseRenewIntervalMs),
      OPSTREAM_CHANGEFEED_LEASE_ACQUIRE_INTERVAL_MS: String(h.config.changefeed.leaseAcquireIntervalMs),
    };
    await waitFor(
      async () => {
        const owners = (await leaseOwners(h)).map((l) => l.owner);
        return owners.length === 4 && owners.filter((o) => o === 'first').length === 2 && owners.filter((o) => o === 'second').length === 2;
      },
      { timeoutMs: 30_000, describe: () => 'the two instances to hold 2 leases each' },
    );
  });
  afterAll(() => h?.close());

  it('--dry-run changes nothing, off a terminal it needs --yes, then the owner hands the range over and it is read on', async () => {
    const first = h.instances[0];
    const released: Array<{ leaseToken: string }> = [];
    const events = first.taps.tap<{ type: string; leaseToken: string }>('leases').subscribe((e) => {
      if (e.data.type === 'changefeed.lease.released') released.push(e.data);
    });
    const token = (await leaseOwners(h)).find((l) => l.owner === 'first')?.token as string;

    const dry = await runCli(['leases', 'release', token, '--dry-run', '--json'], env);
    expect(dry.stderr).toBe('');
    expect(dry.code).toBe(0);
    expect(JSON.parse(dry.stdout)).toEqual({ leaseToken: token, dryRun: true, action: 'request', owner: 'first' });

    const unconfirmed = await runCli(['leases', 'release', token], env);
    expect(unconfirmed.code).toBe(2);
    expect(unconfirmed.stderr).toBe(
      `opstream: ask first to hand lease ${token} over: not confirmed; pass --yes to confirm without a terminal (or --dry-run to only show it)\n`,
    );
    expect((await leaseOwners(h)).find((l) => l.token === token)?.owner).toBe('first');

    const done = await runCli(['leases', 'release', token, '--yes', '--json'], env);
    expect(done.stderr).toBe('');
    expect(done.code).toBe(0);
    expect(JSON.parse(done.stdout) as ReleaseJson).toEqual({
      leaseToken: token,
      dryRun: false,
      action: 'request',
      owner: 'first',
      newOwner: 'second',
      handedOver: true,
    });
    expect(released.map((e) => e.leaseToken)).toContain(token);
    events.unsubscribe();
    // The owner released it (a direct write by the CLI would not mark it so), and the request is gone.
    const { resources } = await h.database
      .container('Leases')
      .items.query<{ properties: Record<string, string> }>({
        query: 'SELECT * FROM c WHERE c.LeaseToken = @t',
        parameters: [{ name: '@t', value: token }],
      })
      .fetchAll();
    expect(resources[0].properties).toMatchObject({ handedOverBy: 'first' });
    expect(resources[0].properties).not.toHaveProperty('releaseRequestedAt');

    // The first instance is one lease short: it steals one back from the second, not the one it handed over.
    await waitFor(
      async () => {
        const owners = await leaseOwners(h);
        return owners.filter((o) => o.owner === 'first').length === 2 ? owners : undefined;
      },
      { timeoutMs: 30_000, describe: () => 'the fleet to balance again' },
    );
    expect((await leaseOwners(h)).find((l) => l.token === token)?.owner).toBe('second');

    // The range is read on by its new owner: a create in it completes.
    const [range] = await leaseRanges(h, [token]);
    let sub = randomUUID();
    while (!rangeContains(range, effectivePartitionKey(sub))) sub = randomUUID();
    await h.frontend.registerSubscription(sub, randomUUID());
    const op = await h.frontend.createCluster(sub, 'rg', 'after-release');
    expect(await h.terminal(op)).toBe('Succeeded');
  });

  it('an unknown lease: exit 66, naming the command that lists them', async () => {
    const unknown = await runCli(['leases', 'release', 'AA-BB', '--yes'], env);
    expect(unknown.code).toBe(66);
    expect(unknown.stderr).toBe('opstream: no lease "AA-BB" of processor "opstream"; "opstream leases" lists them\n');
  });
});
