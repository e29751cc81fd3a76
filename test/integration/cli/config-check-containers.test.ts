import { ContainerSetupError, ensureContainers } from '../../../src/cosmos';
import { runCli } from '../../helpers/cli';
import { startTestCosmos, type TestCosmos } from '../../helpers/cosmos';
import { uniqueName } from '../../helpers/wait-for';

/**
 * `opstream config check --for run` checks the containers `run` would open against the local Cosmos
 * emulator: as opstream makes them, it says so; an Operations container with its TTL off is a
 * warning with the command that sets it; one with hash version 1 fails the check (exit 78) with the
 * command that recreates it, as `run` would refuse to start.
 */
describe('opstream config check --for run: the containers', () => {
  jest.setTimeout(60_000);
  let cosmos: TestCosmos;

  beforeAll(async () => {
    cosmos = await startTestCosmos();
  });
  afterAll(() => cosmos.close());

  const check = (database: string, env: Record<string, string> = {}): ReturnType<typeof runCli> =>
    runCli(['config', 'check', '--for', 'run'], {
      OPSTREAM_COSMOS_ENDPOINT: cosmos.emu.endpoint,
      OPSTREAM_COSMOS_KEY: cosmos.emu.key,
      OPSTREAM_COSMOS_DATABASE: database,
      OPSTREAM_CLUSTERS_SERVICE_URL: 'http://127.0.0.1:9',
      ...env,
    });

  /** A database whose Operations container is made as given, every other one as opstream makes it. */
  async function databaseWith(operations: { version: 1 | 2; defaultTtl?: number }): Promise<string> {
    const id = uniqueName('containers');
    const { database } = await cosmos.client.databases.createIfNotExists({ id });
    await database.containers.create({
      id: 'Operations',
      partitionKey: { paths: ['/partitionKey'], version: operations.version },
      ...(operations.defaultTtl === undefined ? {} : { defaultTtl: operations.defaultTtl }),
    });
    await ensureContainers(cosmos.client, id, { create: true }).catch((err: unknown) => {
      if (!(err instanceof ContainerSetupError)) throw err;
    });
    return id;
  }

  it('containers as opstream makes them: said in one line, the check passes', async () => {
    const id = uniqueName('containers');
    await ensureContainers(cosmos.client, id, { create: true });
    const result = await check(id);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      `\ncontainers: Operations, Resources, Subscriptions, Locks, DeadLetters, Leases in database ${id}: partition keys, hash versions and TTLs as opstream needs them\n`,
    );
    expect(result.stdout).toMatch(/\nconfiguration is valid for "opstream run"\n$/);
  });

  it('the Operations container without its 7-day TTL: a warning with the command that sets it; the check passes', async () => {
    const id = await databaseWith({ version: 2 });
    const result = await check(id);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      `\nwarning: container ${id}/Operations has default TTL off, expected 604800 (an ended operation is kept 7 days, as ARM polls it, then removed: ` +
        `off keeps every one forever, shorter loses them early); set it: az cosmosdb sql container update -g <resource group> -a <account> -d ${id} -n Operations --ttl 604800\n`,
    );
  });

  it('nothing made yet: fails (78) with the commands that make it, unless run creates what is missing (cosmos.createContainers)', async () => {
    const id = uniqueName('containers');
    const missing = await check(id);
    expect(missing.code).toBe(78);
    expect(missing.stdout).toContain(`\nerror: Cosmos database "${id}" does not exist;`);
    const created = await check(id, { OPSTREAM_COSMOS_CREATE_CONTAINERS: 'true' });
    expect(created.code).toBe(0);
    expect(created.stdout).toContain(
      `\ncontainers: some missing in database ${id}; opstream run creates them, as cosmos.createContainers is on\n`,
    );
    // A container that exists wrong is not created over: the check still fails.
    const v1 = await databaseWith({ version: 1, defaultTtl: 604800 });
    expect((await check(v1, { OPSTREAM_COSMOS_CREATE_CONTAINERS: 'true' })).code).toBe(78);
  });

  it('the Operations container with hash version 1: the check fails (78) naming the container and the command that recreates it', async () => {
    const id = await databaseWith({ version: 1, defaultTtl: 604800 });
    const result = await check(id);
    expect(result.code).toBe(78);
    expect(result.stdout).toContain(
      `\nerror: Cosmos containers of database "${id}" are missing or wrong: container ${id}/Operations uses partition key hash version 1;`,
    );
    expect(result.stdout).toContain(
      'the version cannot be changed: recreate the container with partition key /partitionKey (hash version 2), default TTL 604800 s',
    );
    expect(result.stdout).not.toContain('configuration is valid');
    expect(result.stderr).toBe('opstream: the containers do not meet what opstream run needs (above, with the fix)\n');
  });
});
