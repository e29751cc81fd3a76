import { execFileSync, spawn, spawnSync } from 'child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { dirname, join } from 'path';
import { startClustersServiceSimulator, type ClustersServiceSimulator } from '@opstream/clusters-service-simulator';
import { startTestCosmos, type TestCosmos } from '../helpers/cosmos';
import { uniqueName, waitFor } from '../helpers/wait-for';

/**
 * deploy/Dockerfile read without a container engine (test/image/ builds and runs the real image): the files it copies exist,
 * its runtime stage carries only the compiled product (no emulator, test or benchmark code, no dev
 * dependencies), and a production-only install made the way it makes one runs `opstream run`
 * against the local Cosmos emulator and Clusters Service simulator: probes without a token,
 * SIGTERM answered by releasing the leases and exiting 0.
 */
const ROOT = join(__dirname, '..', '..');
const DOCKERFILE = readFileSync(join(ROOT, 'deploy', 'Dockerfile'), 'utf8');

interface Stage {
  name?: string;
  lines: string[];
}

function stages(): Stage[] {
  const out: Stage[] = [];
  for (const raw of DOCKERFILE.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const from = /^FROM \S+(?: AS (\S+))?$/i.exec(line);
    if (from) out.push({ name: from[1], lines: [] });
    else out.at(-1)?.lines.push(line);
  }
  return out;
}

/** `COPY [--from=stage] src… dest` lines of a stage. */
function copies(stage: Stage): Array<{ from?: string; sources: string[]; dest: string }> {
  return stage.lines
    .filter((l) => l.startsWith('COPY '))
    .map((l) => {
      const words = l.split(/\s+/).slice(1);
      const from = words[0].startsWith('--from=') ? (words.shift() as string).slice('--from='.length) : undefined;
      const dest = words.pop() as string;
      return { from, sources: words, dest };
    });
}

const all = stages();
const build = all.find((s) => s.name === 'build') as Stage;
const deps = all.find((s) => s.name === 'deps') as Stage;
const runtime = all[all.length - 1];

describe('deploy/Dockerfile', () => {
  it('builds from files the repository has, and its ignore file keeps each of them in the context', () => {
    const ignore = readFileSync(join(ROOT, 'deploy', 'Dockerfile.dockerignore'), 'utf8').split('\n');
    const local = [...copies(build), ...copies(deps), ...copies(runtime)].filter((c) => !c.from).flatMap((c) => c.sources);
    expect(local.length).toBeGreaterThan(0);
    for (const source of local) {
      expect(existsSync(join(ROOT, source))).toBe(true);
      // Kept by its own line or by one of a folder that holds it.
      const kept = [
        source,
        ...source
          .split('/')
          .slice(0, -1)
          .map((_, i, parts) => `${parts.slice(0, i + 1).join('/')}/`),
      ];
      expect(kept.some((k) => ignore.includes(`!${k}${k.includes('.') || k.endsWith('/') ? '' : '/'}`))).toBe(true);
    }
  });

  it('ships only the compiled product and production dependencies, and runs as a non-root user', () => {
    const fromBuild = copies(runtime)
      .filter((c) => c.from === 'build')
      .flatMap((c) => c.sources);
    expect(fromBuild.sort()).toEqual([
      '/src/dist/processors',
      '/src/dist/schemas',
      '/src/dist/src',
      '/src/src/changefeed/dist',
      '/src/src/changefeed/package.json',
    ]);
    expect(
      copies(runtime)
        .filter((c) => c.from === 'deps')
        .flatMap((c) => c.sources),
    ).toEqual(['/app/node_modules']);
    expect(deps.lines.find((l) => l.startsWith('RUN npm ci'))).toMatch(/--omit=dev/);
    expect(runtime.lines).toContainEqual(expect.stringMatching(/^USER [1-9]\d*:[1-9]\d*$/));
    expect(runtime.lines).toContainEqual('CMD ["dist/src/cli/main.js", "run"]');
  });

  describe('a production-only install, made as the image makes it', () => {
    let dir: string;
    let cosmos: TestCosmos;
    let cs: ClustersServiceSimulator;

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'opstream-image-'));
      for (const c of copies(deps)) {
        for (const f of c.sources) {
          mkdirSync(dirname(join(dir, f)), { recursive: true });
          cpSync(join(ROOT, f), join(dir, f));
        }
      }
      const npmCi = (deps.lines.find((l) => l.startsWith('RUN npm ci')) as string).replace(/^RUN /, '').split('&&')[0].trim().split(/\s+/);
      // The same command; --prefer-offline only lets npm use its cache instead of asking the registry again.
      execFileSync(npmCi[0], [...npmCi.slice(1), '--prefer-offline'], { cwd: dir, stdio: 'pipe', timeout: 240_000 });
      for (const c of copies(runtime).filter((x) => x.from === 'build')) {
        for (const source of c.sources) {
          const rel = source.replace(/^\/src\//, '');
          if (rel.endsWith('package.json')) continue; // copied with the install above
          if (!existsSync(join(ROOT, rel))) throw new Error(`${rel} is missing: run "npm run build" first (npm test does it in pretest)`);
          cpSync(join(ROOT, rel), join(dir, rel), { recursive: true });
        }
      }
      cosmos = await startTestCosmos();
      cs = await startClustersServiceSimulator({ port: 0 });
    }, 300_000);

    afterAll(async () => {
      await cs?.close();
      await cosmos?.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('has no development dependency and no emulator code', () => {
      expect(existsSync(join(dir, 'node_modules', 'typescript'))).toBe(false);
      expect(existsSync(join(dir, 'node_modules', 'jest'))).toBe(false);
      expect(existsSync(join(dir, 'dist', 'infra'))).toBe(false);
      const help = execFileSync(process.execPath, ['dist/src/cli/main.js', 'run', '--help-all'], { cwd: dir, encoding: 'utf8' });
      expect(help).toContain('--ops-metrics-addr');
    });

    it("holds none of the stand-ins' own libraries (the emulator's query parser and the Babel it brings)", () => {
      const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
      expect(Object.keys(manifest.dependencies)).not.toEqual(expect.arrayContaining(['rhea']));
      expect(Object.keys(manifest.dependencies)).not.toEqual(expect.arrayContaining(['@zeit/cosmosdb-query']));
      expect(existsSync(join(dir, 'node_modules', '@zeit', 'cosmosdb-query'))).toBe(false);
      expect(existsSync(join(dir, 'node_modules', '@babel', 'traverse'))).toBe(false);
    });

    it.each(['start', 'emulator cosmos', 'emulator service-bus', 'emulator clusters-service', 'emulator identity'])(
      'opstream %s says in one line that it needs a development install',
      (line: string) => {
        const command = line.split(' ');
        const result = spawnSync(process.execPath, ['dist/src/cli/main.js', ...command], {
          cwd: dir,
          encoding: 'utf8',
          timeout: 30_000,
          env: { PATH: process.env.PATH, OPSTREAM_LOG_SILENT: '1' },
        });
        expect(result.status).toBe(2);
        expect(result.stderr.trim().split('\n')).toEqual([
          expect.stringContaining(`opstream ${command.join(' ')} needs a development install`),
        ]);
        expect(result.stderr).not.toContain('Require stack');
      },
    );

    it('runs: probes and metrics without a token, taps behind it; SIGTERM releases the leases and exits 0', async () => {
      const databaseId = uniqueName('image');
      const token = 't'.repeat(24);
      const child = spawn(process.execPath, ['dist/src/cli/main.js', 'run'], {
        cwd: dir,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: {
          PATH: process.env.PATH,
          NODE_ENV: 'production',
          OPSTREAM_COSMOS_ENDPOINT: cosmos.emu.endpoint,
          OPSTREAM_COSMOS_KEY: cosmos.emu.key,
          OPSTREAM_COSMOS_DATABASE: databaseId,
          OPSTREAM_COSMOS_CREATE_CONTAINERS: 'true',
          OPSTREAM_CLUSTERS_SERVICE_URL: cs.url,
          // ARM's notification receiver here listens on loopback (http): the development switch lets notifications reach it.
          OPSTREAM_NOTIFICATIONS_ALLOW_LOOPBACK: 'true',
          OPSTREAM_OPS_ADDR: '127.0.0.1:0',
          OPSTREAM_OPS_TOKEN: token,
          OPSTREAM_OPS_METRICS_ADDR: '127.0.0.1:0',
          OPSTREAM_CHANGEFEED_LEASE_ACQUIRE_INTERVAL_MS: '300',
          OPSTREAM_LOG_FORMAT: 'json',
        },
      });
      let stderr = '';
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
      const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
      try {
        const line = await waitFor(() => /running; ops server (\S+); probes and metrics (\S+);/.exec(stderr), {
          timeoutMs: 30_000,
          describe: () => `opstream run to say it is running: ${stderr.slice(-2000)}`,
        });
        const [opsUrl, metricsUrl] = [line[1], line[2]];
        expect((await fetch(`${metricsUrl}/healthz`)).status).toBe(200);
        await waitFor(async () => (await fetch(`${metricsUrl}/readyz`)).status === 200, { timeoutMs: 30_000, describe: () => 'readiness' });
        const metrics = await fetch(`${metricsUrl}/metrics`);
        expect(metrics.status).toBe(200);
        expect(await metrics.text()).toContain('opstream_changefeed_leases_owned');
        expect((await fetch(`${metricsUrl}/streams/transitions`)).status).toBe(404); // taps are not served here
        expect((await fetch(`${opsUrl}/streams`)).status).toBe(401); // and need the token there
        expect((await fetch(`${opsUrl}/metrics`)).status).toBe(401);

        const leases = cosmos.client.database(databaseId).container('Leases');
        const owned = async (): Promise<number> => {
          const { resources } = await leases.items.query<{ LeaseToken?: string; Owner?: string | null }>('SELECT * FROM c').fetchAll();
          return resources.filter((l) => l.LeaseToken && l.Owner).length;
        };
        await waitFor(async () => (await owned()) === 4, { timeoutMs: 30_000, describe: () => 'the instance to hold the 4 leases' });

        child.kill('SIGTERM');
        expect(await exited).toBe(0);
        expect(await owned()).toBe(0); // released, not left to expire
        const messages = stderr.split('\n').flatMap((l) => (l.startsWith('{') ? [(JSON.parse(l) as { message: string }).message] : []));
        const order = ['opstream stopping: unready, no new handling', 'leases released', 'opstream stopped'].map((m) =>
          messages.indexOf(m),
        );
        expect(order.every((i) => i >= 0)).toBe(true);
        expect([...order].sort((a, b) => a - b)).toEqual(order);
      } finally {
        if (child.exitCode === null) child.kill('SIGKILL');
      }
    }, 90_000);
  });
});
