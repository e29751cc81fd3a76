import { execFileSync, spawn } from 'child_process';
import { randomUUID } from 'crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { startClustersServiceSimulator, type ClustersServiceSimulator } from '@opstream/clusters-service-simulator';
import { FrontendSimulator, startNotificationReceiver, type NotificationReceiver } from '@opstream/frontend-simulator';
import { startTestCosmos, type TestCosmos } from '../helpers/cosmos';
import { FAST_CS_DURATIONS } from '../helpers/test-config';
import { uniqueName, waitFor } from '../helpers/wait-for';

/**
 * deploy/Dockerfile built with podman and run as Kubernetes runs it (deploy/kubernetes: non-root,
 * read-only root file system, no capabilities), against the local Cosmos emulator, Clusters Service
 * simulator and ARM notification receiver on the host's loopback. No registry is reachable here, so
 * the Dockerfile's two base images are replaced, through its build arguments only, by local images
 * made from Debian packages and the official Node.js binary (.ci/setup-image-bases). Slow: the first
 * run on a machine installs podman and makes the base images (minutes); later runs reuse them and
 * podman's layer cache.
 */
const ROOT = join(__dirname, '..', '..');
const IMAGE = 'localhost/opstream:image-test';
const RUNTIME_BASE = 'localhost/opstream-base/node-runtime:image-test';
const GRACE_MS = 30_000; // deploy/kubernetes: terminationGracePeriodSeconds
const PODMAN_ENV = { ...process.env, CONTAINERS_CONF: join(ROOT, '.ci', 'containers.conf') };

function podman(args: string[], timeoutMs = 60_000): string {
  return execFileSync('podman', args, {
    cwd: ROOT,
    env: PODMAN_ENV,
    encoding: 'utf8',
    timeout: timeoutMs,
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 64 << 20,
  });
}

function duBytes(path: string): number {
  const st = statSync(path, { throwIfNoEntry: false });
  if (!st) return 0;
  if (!st.isDirectory()) return st.isFile() ? st.size : 0;
  return readdirSync(path).reduce((sum, name) => sum + duBytes(join(path, name)), 0);
}

const mib = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

describe('the opstream image, built from deploy/Dockerfile and run with podman', () => {
  let commit: string;
  let version: string;
  let buildSeconds: number;
  let cosmos: TestCosmos;
  let cs: ClustersServiceSimulator;
  let receiver: NotificationReceiver;

  beforeAll(async () => {
    execFileSync('bash', [join(ROOT, '.ci', 'setup-podman')], { stdio: 'pipe', timeout: 600_000 });
    const bases = execFileSync('bash', [join(ROOT, '.ci', 'setup-image-bases')], {
      cwd: ROOT,
      env: PODMAN_ENV,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 1_200_000,
    });
    const args = new Map(
      bases
        .trim()
        .split('\n')
        .flatMap((l) => (/^(NODE_IMAGE|RUNTIME_IMAGE)=\S+$/.test(l) ? [l.split('=') as [string, string]] : [])),
    );
    expect([...args.keys()].sort()).toEqual(['NODE_IMAGE', 'RUNTIME_IMAGE']);
    commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
    // buildah 1.28 keys its layer cache on the ENV line as written (`OPSTREAM_BUILD_COMMIT=${OPSTREAM_BUILD_COMMIT}`),
    // not as expanded: with only the build argument changed it would reuse the previous commit's runtime stage.
    // The runtime base labelled with the commit gives that stage (and only it) a new parent.
    const labelled = mkdtempSync(join(tmpdir(), 'opstream-runtime-base-'));
    try {
      writeFileSync(
        join(labelled, 'Containerfile'),
        `FROM ${args.get('RUNTIME_IMAGE')}\nLABEL org.opencontainers.image.revision=${commit}\n`,
      );
      podman(['build', '--quiet', '--runtime', 'runc', '--network', 'none', '-t', RUNTIME_BASE, labelled]);
    } finally {
      rmSync(labelled, { recursive: true, force: true });
    }
    const buildArgs = [`NODE_IMAGE=${args.get('NODE_IMAGE')}`, `RUNTIME_IMAGE=${RUNTIME_BASE}`];
    version = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
    const started = Date.now();
    // --network host: the build stages' npm ci reaches the registry as this machine does.
    podman(
      [
        'build',
        '--runtime',
        'runc',
        '--network',
        'host',
        '-f',
        'deploy/Dockerfile',
        '--ignorefile',
        'deploy/Dockerfile.dockerignore',
        ...buildArgs.flatMap((a) => ['--build-arg', a]),
        '--build-arg',
        `OPSTREAM_BUILD_COMMIT=${commit}`,
        '-t',
        IMAGE,
        '.',
      ],
      1_200_000,
    );
    buildSeconds = (Date.now() - started) / 1000;
    cosmos = await startTestCosmos();
    cs = await startClustersServiceSimulator({ port: 0, durations: FAST_CS_DURATIONS });
    receiver = await startNotificationReceiver();
  }, 2_400_000);

  afterAll(async () => {
    // The runtime stage's layers are new at every commit: removed, as is the labelled base (podman also removes
    // their untagged intermediate images). The base images and the build stages' layers stay cached.
    for (const image of [IMAGE, RUNTIME_BASE]) {
      try {
        podman(['rmi', image]);
      } catch {
        // not built
      }
    }
    await receiver?.close();
    await cs?.close();
    await cosmos?.close();
  });

  it('holds the compiled product and its production dependencies, no development package, and runs as user 65532', () => {
    expect(podman(['image', 'inspect', '--format', '{{.Config.User}}', IMAGE]).trim()).toBe('65532:65532');
    const imageBytes = Number(podman(['image', 'inspect', '--format', '{{.Size}}', IMAGE]).trim());
    const root = podman(['image', 'mount', IMAGE]).trim();
    try {
      const app = join(root, 'app');
      for (const present of [
        'dist/src/cli/main.js',
        'dist/processors',
        'dist/schemas',
        'package.json',
        'node_modules/@azure/cosmos',
        'node_modules/commander',
        'node_modules/@opstream/changefeed',
        'src/changefeed/dist/index.js',
      ]) {
        expect(existsSync(join(app, present))).toBe(true);
      }
      // Stand-ins, tests, benchmarks and the stand-ins' own libraries (AMQP server, query parser), dev tools.
      // Of src/ only the change feed package's compiled code (its workspace link points there); no TypeScript source.
      for (const absent of [
        'dist/infra',
        'dist/test',
        'dist/bench',
        'infra',
        'test',
        'bench',
        'src/changefeed/index.ts',
        'src/pipeline',
        'node_modules/@opstream/cosmos-emulator',
        'node_modules/@opstream/service-bus-emulator',
        'node_modules/@zeit/cosmosdb-query',
        'node_modules/typescript',
        'node_modules/jest',
        'node_modules/eslint',
        'node_modules/playwright-core',
      ]) {
        expect([absent, existsSync(join(app, absent))]).toEqual([absent, false]);
      }
      // rhea is also the AMQP client under @azure/service-bus (through rhea-promise): there, and only there, it belongs.
      const rheaUsers = ['rhea-promise', '@azure/core-amqp', '@azure/service-bus'].filter((p) => {
        const manifest = join(app, 'node_modules', p, 'package.json');
        return (
          existsSync(manifest) &&
          'rhea' in ((JSON.parse(readFileSync(manifest, 'utf8')) as { dependencies?: Record<string, string> }).dependencies ?? {})
        );
      });
      if (existsSync(join(app, 'node_modules', 'rhea'))) expect(rheaUsers).not.toEqual([]);
      const manifest = JSON.parse(readFileSync(join(app, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
      expect(Object.keys(manifest.dependencies)).not.toContain('rhea');
      expect(existsSync(join(root, 'bin', 'sh'))).toBe(false); // distroless: no shell
      const depsBytes = duBytes(join(app, 'node_modules'));
      console.log(
        `image ${IMAGE}: ${mib(imageBytes)} (podman image size); production node_modules ${mib(depsBytes)}; built in ${buildSeconds.toFixed(0)} s`,
      );
      // Bounds well above today's figures (deploy/README.md), to notice a development tree slipping in.
      expect(depsBytes).toBeLessThan(120 * 2 ** 20);
      expect(imageBytes).toBeLessThan(400 * 2 ** 20);
    } finally {
      podman(['image', 'unmount', IMAGE]);
    }
  });

  it('runs read-only without capabilities: an operation completes, /readyz and build info answer, SIGTERM releases the leases within the grace period', async () => {
    const name = uniqueName('opstream-image');
    const databaseId = uniqueName('image');
    const env: Record<string, string> = {
      OPSTREAM_COSMOS_ENDPOINT: cosmos.emu.endpoint,
      OPSTREAM_COSMOS_KEY: cosmos.emu.key,
      OPSTREAM_COSMOS_DATABASE: databaseId,
      OPSTREAM_COSMOS_CREATE_CONTAINERS: 'true',
      OPSTREAM_CLUSTERS_SERVICE_URL: cs.url,
      // ARM's notification receiver here listens on loopback (http): the development switch lets notifications reach it.
      OPSTREAM_NOTIFICATIONS_ALLOW_LOOPBACK: 'true',
      OPSTREAM_OPS_ADDR: '127.0.0.1:0',
      OPSTREAM_OPS_TOKEN: 't'.repeat(24),
      OPSTREAM_OPS_METRICS_ADDR: '127.0.0.1:0',
      OPSTREAM_CHANGEFEED_LEASE_ACQUIRE_INTERVAL_MS: '300',
      OPSTREAM_FOLLOW_INITIAL_DELAY_MS: '50',
      OPSTREAM_FOLLOW_MAX_DELAY_MS: '400',
      OPSTREAM_FOLLOW_BATCH_TICK_MS: '50',
      OPSTREAM_LOG_FORMAT: 'json',
    };
    const child = spawn(
      'podman',
      [
        'run',
        '--rm',
        '--name',
        name,
        '--runtime',
        'runc',
        '--read-only',
        '--cap-drop=all',
        '--security-opt',
        'no-new-privileges',
        '--network',
        'host',
        ...Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]),
        IMAGE,
      ],
      { cwd: ROOT, env: PODMAN_ENV, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (output += c.toString('utf8')));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    try {
      const line = await waitFor(() => /running; ops server (\S+); probes and metrics (\S+);/.exec(output), {
        timeoutMs: 60_000,
        describe: () => `the container to say it is running: ${output.slice(-2000)}`,
      });
      const metricsUrl = line[2];

      // The process: user 65532, no effective or bounding capabilities.
      const pid = podman(['inspect', '--format', '{{.State.Pid}}', name]).trim();
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      expect(/^Uid:\s+(\d+)/m.exec(status)?.[1]).toBe('65532');
      expect(/^CapEff:\s+(\S+)/m.exec(status)?.[1]).toBe('0000000000000000');
      expect(/^CapBnd:\s+(\S+)/m.exec(status)?.[1]).toBe('0000000000000000');

      await waitFor(async () => (await fetch(`${metricsUrl}/readyz`)).status === 200, { timeoutMs: 30_000, describe: () => 'readiness' });
      const metrics = await (await fetch(`${metricsUrl}/metrics`)).text();
      const buildInfo = metrics.split('\n').find((l) => l.startsWith('opstream_build_info{'));
      expect(buildInfo).toContain(`version="${version}"`);
      expect(buildInfo).toContain(`commit="${commit}"`);

      const database = cosmos.client.database(databaseId);
      const leases = database.container('Leases');
      const owned = async (): Promise<number> => {
        const { resources } = await leases.items.query<{ LeaseToken?: string; Owner?: string | null }>('SELECT * FROM c').fetchAll();
        return resources.filter((l) => l.LeaseToken && l.Owner).length;
      };
      await waitFor(async () => (await owned()) === 4, { timeoutMs: 30_000, describe: () => 'the container to hold the 4 leases' });

      // An operation written as the frontend writes it completes, and ARM is told.
      const frontend = new FrontendSimulator({ database, notificationBaseUrl: receiver.url });
      const sub = randomUUID();
      await frontend.registerSubscription(sub, randomUUID());
      const op = await frontend.createCluster(sub, 'rg-image', uniqueName('c'));
      const notified = await receiver.waitForNotification(op.operationId, 60_000);
      const told = (notified.body as { status?: unknown }).status;
      if (told !== 'Succeeded')
        throw new Error(`ARM was told ${JSON.stringify(notified.body)}; the container said: ${output.slice(-4000)}`);

      const stopAt = Date.now();
      podman(['kill', '--signal', 'TERM', name]);
      expect(await exited).toBe(0);
      expect(Date.now() - stopAt).toBeLessThan(GRACE_MS);
      expect(await owned()).toBe(0); // released, not left to expire
      const messages = output.split('\n').flatMap((l) => (l.startsWith('{') ? [(JSON.parse(l) as { message: string }).message] : []));
      const order = ['opstream stopping: unready, no new handling', 'leases released', 'opstream stopped'].map((m) => messages.indexOf(m));
      expect(order.every((i) => i >= 0)).toBe(true);
      expect([...order].sort((a, b) => a - b)).toEqual(order);
    } finally {
      if (child.exitCode === null) {
        try {
          podman(['rm', '--force', name]);
        } catch {
          // already gone
        }
      }
    }
  }, 180_000);
});
