import { CONTAINERS } from '../../../src/cosmos';
import { runCli, spawnCli, type CliResult } from '../../helpers/cli';
import { hashV2Key, startTestCosmos, type TestCosmos } from '../../helpers/cosmos';
import { uniqueName } from '../../helpers/wait-for';

/**
 * `opstream run` against an empty Cosmos database stops with exit 78 and a hint; running the hint —
 * the flag it names, or the variable — gets past container setup: the instance runs and the database
 * has every container.
 */
describe('opstream run: the missing-containers hint works as printed', () => {
  let cosmos: TestCosmos;
  beforeAll(async () => {
    cosmos = await startTestCosmos({ partitions: 2 });
  });
  afterAll(() => cosmos?.close());

  const env = (databaseId: string, extra: Record<string, string> = {}): Record<string, string> => ({
    OPSTREAM_COSMOS_ENDPOINT: cosmos.emu.endpoint,
    OPSTREAM_COSMOS_KEY: cosmos.emu.key,
    OPSTREAM_COSMOS_DATABASE: databaseId,
    // Nothing is processed here: Clusters Service is never called.
    OPSTREAM_CLUSTERS_SERVICE_URL: 'http://127.0.0.1:9',
    OPSTREAM_OPS_ADDR: '127.0.0.1:0',
    ...extra,
  });

  /** Starts `opstream run …`, waits until it runs, checks the containers, stops it with SIGTERM. */
  async function runsPastContainerSetup(args: string[], databaseId: string, extra: Record<string, string> = {}): Promise<CliResult> {
    const run = spawnCli(args, env(databaseId, extra));
    try {
      await run.waitForStderr((line) => / running; .*Ctrl-C stops$/.test(line), 30_000, 'that it runs');
    } finally {
      if (run.child.exitCode === null) run.child.kill('SIGTERM');
    }
    const { resources } = await cosmos.client.database(databaseId).containers.readAll().fetchAll();
    expect(resources.map((c) => c.id).sort()).toEqual(
      Object.values(CONTAINERS)
        .map((c) => c.id)
        .sort(),
    );
    return run.exited;
  }

  it('prints the hint (exit 78), and the hinted flag and variable each create the layout', async () => {
    const empty = uniqueName('empty');
    const failed = await runCli(['run'], env(empty));
    expect(failed.code).toBe(78);
    expect(failed.stderr).toBe(
      `opstream: Cosmos database "${empty}" does not exist; the template deploy/azure/main.bicep creates the database and every container (deploy/azure/containers.json lists them), ` +
        'or for key-authenticated development start opstream run with --cosmos-create-containers (or OPSTREAM_COSMOS_CREATE_CONTAINERS=true) to create what is missing\n',
    );
    const hint = /start opstream (\S+) with (--\S+) \(or (OPSTREAM_\w+)=(\w+)\)/.exec(failed.stderr);
    if (!hint) throw new Error(`no runnable hint in: ${failed.stderr}`);
    const [, command, flag, variable, value] = hint as unknown as [string, string, string, string, string];

    const withFlag = await runsPastContainerSetup([command, flag], empty);
    expect(withFlag.code).toBe(0);

    const withVariable = await runsPastContainerSetup([command], uniqueName('empty'), { [variable]: value });
    expect(withVariable.code).toBe(0);

    // Once created, a plain `run` (no switch) verifies the layout and runs.
    const again = await runsPastContainerSetup(['run'], empty);
    expect(again.code).toBe(0);
  });

  it('a database with a container missing gets the same hint; --no-cosmos-create-containers wins over the variable', async () => {
    const partial = uniqueName('partial');
    const { database } = await cosmos.client.databases.createIfNotExists({ id: partial });
    // As opstream makes it (hash v2): this container is right, only the missing ones are named.
    await database.containers.create({
      id: CONTAINERS.operations.id,
      partitionKey: hashV2Key(CONTAINERS.operations.partitionKeyPath),
      defaultTtl: CONTAINERS.operations.defaultTtl,
    });
    const failed = await runCli(['run', '--no-cosmos-create-containers'], env(partial, { OPSTREAM_COSMOS_CREATE_CONTAINERS: 'true' }));
    expect(failed.code).toBe(78);
    expect(failed.stderr).toMatch(
      new RegExp(
        `^opstream: Cosmos containers of database "${partial}" are missing or wrong: container ${partial}/Resources does not exist \\(partition key /partitionKey \\(hash version 2\\), TTL off: az cosmosdb sql container create .* -n Resources -p /partitionKey --partition-key-version 2\\); .*` +
          'or for key-authenticated development start opstream run with --cosmos-create-containers \\(or OPSTREAM_COSMOS_CREATE_CONTAINERS=true\\) to create what is missing\n$',
      ),
    );
    const fixed = await runsPastContainerSetup(['run', '--cosmos-create-containers'], partial);
    expect(fixed.code).toBe(0);
  });

  it('the old form with a value is a usage error (exit 2)', async () => {
    const result = await runCli(['run', '--cosmos-create-containers', 'true'], env(uniqueName('usage')));
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('too many arguments');
  });
});
