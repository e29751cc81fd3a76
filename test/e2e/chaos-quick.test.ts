import { spawn } from 'child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';

/**
 * The chaos suite in quick mode (bench/chaos, `npm run chaos -- --quick`), as CI runs it: the built
 * program in a child process (its own Cosmos emulator process, CS simulator, ARM receiver and three
 * `opstream run` processes, all on loopback), under 3 minutes. Every scenario's verdict must be PASS;
 * a failure names the scenario and the figures that missed their targets. The hostile-documents
 * scenario (`--hostile`) runs the same way, quick.
 */
const MAIN = join(__dirname, '..', '..', 'dist', 'bench', 'chaos', 'main.js');
const BUDGET_MS = 180_000;

interface Scenario {
  name: string;
  verdict: 'PASS' | 'FAIL';
  failures: string[];
}

interface Summary {
  mode: string;
  passed: boolean;
  scenarios: Scenario[];
}

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  output: string;
  timedOut: boolean;
}

function runQuick(jsonOut: string, extraArgs: string[] = [], budgetMs = BUDGET_MS): Promise<Run> {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('OPSTREAM_')) env[k] = v;
  const child = spawn(process.execPath, [MAIN, '--quick', ...extraArgs, '--json-out', jsonOut], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (c: Buffer) => (output += c.toString('utf8')));
  child.stderr?.on('data', (c: Buffer) => (output += c.toString('utf8')));
  let timedOut = false;
  // SIGINT: the program stops its own child processes before it exits.
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGINT');
  }, budgetMs);
  return new Promise((resolve) =>
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, output, timedOut });
    }),
  );
}

describe('chaos suite, quick mode', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'opstream-chaos-test-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it(
    'runs every scenario within 3 minutes and every verdict passes',
    async () => {
      if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run "npm run build" first (npm test does it in pretest)`);
      const jsonOut = join(dir, 'chaos.json');
      const run = await runQuick(jsonOut);
      const tail = run.output.split('\n').slice(-60).join('\n');
      if (run.timedOut) throw new Error(`chaos --quick did not finish within ${BUDGET_MS} ms; output:\n${tail}`);
      if (!existsSync(jsonOut))
        throw new Error(`chaos --quick wrote no summary (exit ${String(run.code)}, signal ${String(run.signal)}); output:\n${tail}`);
      const summary = JSON.parse(readFileSync(jsonOut, 'utf8')) as Summary;
      expect(summary.mode).toBe('quick');
      expect(summary.scenarios.map((s) => s.name).sort()).toEqual([
        'arm-down',
        'cosmos-faults',
        'cs-faults',
        'load',
        'malformed',
        'stuck-lock',
      ]);
      const failed = summary.scenarios.filter((s) => s.verdict !== 'PASS').map((s) => `${s.name}: ${s.failures.join('; ')}`);
      expect(failed).toEqual([]);
      expect(summary.passed).toBe(true);
      expect(run.code).toBe(0);
    },
    BUDGET_MS + 30_000,
  );
});

const HOSTILE_BUDGET_MS = 240_000;

interface HostileSummary {
  mode: string;
  result: {
    verdict: 'PASS' | 'FAIL';
    failures: string[];
    figures: { hostileDocuments: number; hostileAccounted: number; lost: number; rangesStalled: number };
  };
}

describe('chaos suite, hostile documents, quick mode', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'opstream-chaos-hostile-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it(
    "accounts for every hostile document, loses nothing and keeps the normal workload's reaction within 2x",
    async () => {
      if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run "npm run build" first (npm test does it in pretest)`);
      const jsonOut = join(dir, 'hostile.json');
      const run = await runQuick(jsonOut, ['--hostile'], HOSTILE_BUDGET_MS);
      const tail = run.output.split('\n').slice(-60).join('\n');
      if (run.timedOut) throw new Error(`chaos --hostile --quick did not finish within ${HOSTILE_BUDGET_MS} ms; output:\n${tail}`);
      if (!existsSync(jsonOut)) throw new Error(`chaos --hostile --quick wrote no summary (exit ${String(run.code)}); output:\n${tail}`);
      const summary = JSON.parse(readFileSync(jsonOut, 'utf8')) as HostileSummary;
      expect(summary.mode).toBe('quick');
      expect(summary.result.failures).toEqual([]);
      expect(summary.result.figures.hostileDocuments).toBeGreaterThan(0);
      expect(summary.result.figures.hostileAccounted).toBe(summary.result.figures.hostileDocuments);
      expect(summary.result.verdict).toBe('PASS');
      expect(run.code).toBe(0);
    },
    HOSTILE_BUDGET_MS + 30_000,
  );
});
