import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import type { Container } from '@azure/cosmos';
import { startTestCosmos, type TestCosmos } from '../helpers/cosmos';
import { waitFor } from '../helpers/wait-for';

/**
 * The change feed processor as another project gets it: packed with `npm pack`, installed from the
 * tarball into an empty project that has only `@azure/cosmos` besides, and its example run there
 * as two processes against the local emulator.
 */
const run = promisify(execFile);
const repo = resolve(__dirname, '../..');
const packageDir = join(repo, 'src/changefeed');

interface Line {
  event: string;
  id?: string;
  leaseToken?: string;
  instance?: string;
}

class ExampleInstance {
  readonly lines: Line[] = [];
  readonly exited: Promise<number | null>;
  private readonly child: ChildProcess;
  private stderr = '';

  constructor(project: string, env: Record<string, string>) {
    this.child = spawn(process.execPath, [join(project, 'node_modules/@opstream/changefeed/example/process-changes.js')], {
      cwd: project,
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    createInterface({ input: this.child.stdout! }).on('line', (line) => {
      try {
        this.lines.push(JSON.parse(line) as Line);
      } catch {
        this.lines.push({ event: 'text', id: line });
      }
    });
    this.child.stderr!.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    this.exited = new Promise((done) => this.child.once('exit', (code) => done(code)));
  }

  handled(): Set<string> {
    return new Set(this.lines.filter((l) => l.event === 'change').map((l) => l.id!));
  }

  saw(event: string): boolean {
    return this.lines.some((l) => l.event === event);
  }

  describe(): string {
    return `stdout ${JSON.stringify(this.lines.slice(-10))}; stderr ${this.stderr.slice(-2000)}`;
  }

  stop(): void {
    this.child.kill('SIGTERM');
  }

  kill(): void {
    if (this.child.exitCode === null) this.child.kill('SIGKILL');
  }
}

describe('@opstream/changefeed installed from its packed tarball', () => {
  let cosmos: TestCosmos;
  let project: string;
  const instances: ExampleInstance[] = [];

  beforeAll(async () => {
    cosmos = await startTestCosmos();
    project = await mkdtemp(join(tmpdir(), 'changefeed-consumer-'));
    const { stdout } = await run('npm', ['pack', packageDir, '--pack-destination', project, '--json'], { cwd: repo });
    const [packed] = JSON.parse(stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
    const files = packed.files.map((f) => f.path);
    // What a consumer gets: compiled code, declarations, the example and the README; no sources, tests or build state.
    expect(files).toEqual(
      expect.arrayContaining(['dist/index.js', 'dist/index.d.ts', 'example/process-changes.js', 'README.md', 'package.json']),
    );
    expect(files.filter((f) => (f.endsWith('.ts') && !f.endsWith('.d.ts')) || f.includes('tsbuildinfo'))).toEqual([]);

    const cosmosVersion = (JSON.parse(await readFile(join(repo, 'node_modules/@azure/cosmos/package.json'), 'utf8')) as { version: string })
      .version;
    await writeFile(
      join(project, 'package.json'),
      JSON.stringify({
        name: 'consumer',
        private: true,
        dependencies: { '@azure/cosmos': cosmosVersion, '@opstream/changefeed': `file:./${packed.filename}` },
      }),
    );
    // The npm cache holds every package already (this repository's install); the registry is the fallback.
    await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts'], { cwd: project, timeout: 240_000 });
  }, 300_000);

  afterAll(async () => {
    for (const instance of instances) instance.kill();
    await Promise.all(instances.map((i) => i.exited));
    await cosmos?.close();
    if (project) await rm(project, { recursive: true, force: true });
  });

  it('type-checks a TypeScript consumer against the package exports', async () => {
    const source = join(project, 'consumer.ts');
    await writeFile(
      source,
      [
        "import { createChangeFeedProcessor, type ChangeFeedContext, type ChangeFeedProcessor } from '@opstream/changefeed';",
        "import type { Container } from '@azure/cosmos';",
        'export function make(feed: Container, leases: Container): ChangeFeedProcessor {',
        '  return createChangeFeedProcessor<{ id: string }>(',
        '    { feedContainer: feed, leaseContainer: leases, handler: async (docs, ctx: ChangeFeedContext) => void [docs.length, ctx.leaseToken] },',
        "    { processorName: 'p' },",
        '  );',
        '}',
      ].join('\n'),
    );
    const tsc = join(repo, 'node_modules/typescript/bin/tsc');
    await run(
      process.execPath,
      [tsc, '--noEmit', '--strict', '--module', 'node16', '--moduleResolution', 'node16', '--skipLibCheck', source],
      { cwd: project },
    );
  }, 60_000);

  it('runs the example: leases created, changes handled, checkpoints written, a second instance takes over on stop', async () => {
    const env = {
      COSMOS_ENDPOINT: cosmos.emu.endpoint,
      COSMOS_KEY: cosmos.emu.key,
      COSMOS_DATABASE: 'shop',
      LEASE_ACQUIRE_INTERVAL_MS: '300',
    };
    const first = new ExampleInstance(project, { ...env, INSTANCE_NAME: 'first' });
    instances.push(first);
    await waitFor(() => first.saw('started') && first.saw('changefeed.lease.acquired'), {
      timeoutMs: 60_000,
      describe: () => first.describe(),
    });

    const database = cosmos.client.database('shop');
    const orders: Container = database.container('orders');
    const leases: Container = database.container('leases');
    const firstIds = Array.from({ length: 8 }, (_, i) => `order-a${i}`);
    for (const [i, id] of firstIds.entries()) await orders.items.create({ id, customerId: `customer-${i}` });
    await waitFor(() => firstIds.every((id) => first.handled().has(id)), { timeoutMs: 30_000, describe: () => first.describe() });

    // Lease documents in the .NET v3 shape, owned by the first instance, with a checkpoint written.
    const leaseDocs = async () =>
      (
        await leases.items
          .query<{ id: string; Owner: string | null; ContinuationToken: string | null; LeaseToken?: string }>('SELECT * FROM c')
          .fetchAll()
      ).resources.filter((d) => d.LeaseToken !== undefined);
    await waitFor(
      async () => {
        const docs = await leaseDocs();
        return docs.length > 0 && docs.every((d) => d.Owner === 'first') && docs.some((d) => d.ContinuationToken !== null);
      },
      { timeoutMs: 30_000, describe: () => first.describe() },
    );

    const second = new ExampleInstance(project, { ...env, INSTANCE_NAME: 'second' });
    instances.push(second);
    await waitFor(() => second.saw('started'), { timeoutMs: 60_000, describe: () => second.describe() });
    first.stop();
    expect(await first.exited).toBe(0);
    expect(first.saw('stopped')).toBe(true);

    await waitFor(async () => (await leaseDocs()).every((d) => d.Owner === 'second'), {
      timeoutMs: 30_000,
      describe: () => second.describe(),
    });
    const secondIds = Array.from({ length: 8 }, (_, i) => `order-b${i}`);
    for (const [i, id] of secondIds.entries()) await orders.items.create({ id, customerId: `customer-${i}` });
    await waitFor(() => secondIds.every((id) => second.handled().has(id)), { timeoutMs: 30_000, describe: () => second.describe() });
    // A graceful stop flushes the checkpoints before releasing: the second instance resumes after them.
    expect(firstIds.filter((id) => second.handled().has(id))).toEqual([]);
    second.stop();
    expect(await second.exited).toBe(0);
  }, 180_000);
});
