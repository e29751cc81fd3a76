/**
 * Writes the "## opstream vs the polling baseline" section of bench/results/opstream-vs-baseline.md (only that section)
 * and bench/results/opstream-vs-baseline.svg from one run or several (each figure then with its spread). Hand-written analysis kept in
 * bench/results/opstream-vs-baseline.notes.md is included as is under the generated tables.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { resultsPath } from './results-section';
import type { ProfileShare, ProfileSummary } from './cpu-profile';
import type { CpuQuotaMechanism } from './cpu-quota';
import type { ScriptedResult, StepFigures } from './scripted-phase';
import { finite, lowerSpread, mean, meanByKey, shares, spread, spreadMs } from './spread';
import type { Summary } from './stats';
import { barPanelLog, linePanel, svgDocument } from './svg-chart';
import type { LevelResult } from './throughput-phase';

export interface BenchReport {
  mode: 'quick' | 'full';
  /** `git rev-parse --short HEAD` when the run started, `+dirty` with uncommitted changes. */
  commit?: string;
  date: string;
  machine: string;
  node: string;
  baselineIntervals: { scanIntervalMs: number; passIntervalMs: number };
  scripted: ScriptedResult[];
  /** Machine CPU during the scripted phase (both systems, their emulators and the harness run then). */
  scriptedMachine: { busyCores: number | undefined; loadAverage: [number, number] };
  sweep: LevelResult[];
  scaleOut: LevelResult[];
  /** Offered rate of every scale-out level, in runs before the rate per instance. */
  scaleOutRate?: number;
  /** Offered rate per instance: n instances were offered n × this. */
  scaleOutRatePerInstance?: number;
  /** How phase 3 capped each instance's CPU, or why it could not (instances unconstrained then). Absent from runs before the cap. */
  scaleOutCpu?: { perInstanceCores: number; mechanism: CpuQuotaMechanism } | { unavailable: string };
  /** Why the scale-out phase did not run (quick mode). */
  scaleOutSkipped?: string;
  profile: ProfileSummary | undefined;
  wallSeconds: number;
}

const SECTION = '## opstream vs the polling baseline';
const RESULTS_FILE = resultsPath('opstream-vs-baseline');
const SVG_FILE = RESULTS_FILE.replace(/\.md$/, '.svg');
const NOTES_FILE = RESULTS_FILE.replace(/\.md$/, '.notes.md');

const COLORS = { baseline: '#d62728', opstream: '#1f77b4' };

const ms = (v: number | undefined): string => spreadMs([v]);
const fmt = (v: number | undefined, digits = 1): string => (v === undefined || !Number.isFinite(v) ? 'n/a' : v.toFixed(digits));
const mebibytes = (v: number | undefined): number | undefined => (v === undefined ? undefined : v / 1048576);

/** The scripted phase of each run that has both systems, paired by run. */
function scriptedPairs(runs: readonly BenchReport[]): Array<{ run: BenchReport; b: ScriptedResult; o: ScriptedResult }> {
  return runs.flatMap((run) => {
    const b = run.scripted.find((s) => s.system === 'baseline');
    const o = run.scripted.find((s) => s.system === 'opstream');
    return b && o ? [{ run, b, o }] : [];
  });
}

/** Levels keyed by system, instances and offered rate, in the order of the first run that has them. */
function levelsOf(runs: readonly BenchReport[], pick: (r: BenchReport) => LevelResult[]): Array<Array<LevelResult | undefined>> {
  const key = (l: LevelResult): string => `${l.system}|${l.instances}|${l.rate}`;
  const keys = [...new Set(runs.flatMap((r) => pick(r).map(key)))];
  return keys.map((k) => runs.map((r) => pick(r).find((l) => key(l) === k)));
}

const present = <T>(xs: ReadonlyArray<T | undefined>): T[] => xs.filter((x): x is T => x !== undefined);
const label = (l: LevelResult): string => `${l.system}${l.instances > 1 ? ` ×${l.instances}` : ''} @ ${l.rate}`;
const runDate = (r: BenchReport): string => `${r.date.slice(0, 16).replace('T', ' ')} UTC`;

/**
 * The section from one run or several: with several, every figure is the mean over the runs with
 * its range (bench/harness/spread.ts), ratios are taken run by run, and the machine's state is given
 * per run, so a reader sees how much of a difference is the machine.
 */
export function renderSection(input: BenchReport | readonly BenchReport[]): string {
  const runs: readonly BenchReport[] = Array.isArray(input) ? input : [input as BenchReport];
  const r = runs[0];
  const many = runs.length > 1;
  const commits = [...new Set(runs.map((x) => x.commit ?? 'unknown'))].join(', ');
  const L: string[] = [SECTION, ''];
  L.push(
    many
      ? `Recorded ${r.date.slice(0, 10)}, **${runs.length} ${r.mode} runs** (\`npm run bench${r.mode === 'quick' ? ' -- --quick' : ''}\`: ${runs.map((x, i) => `${i + 1} finished ${runDate(x)}, ${x.wallSeconds} s`).join('; ')}), ${r.machine}, Node ${r.node}, commit ${commits}.` +
          ' Every figure is the mean over the runs with its range (min–max); ratios are taken within each run.'
      : `Recorded ${r.date.slice(0, 10)}, **${r.mode} mode** (\`npm run bench${r.mode === 'quick' ? ' -- --quick' : ''}\`, ${r.wallSeconds} s), ${r.machine}, Node ${r.node}${r.commit ? `, commit ${r.commit}` : ''}.`,
    `Baseline intervals: scan every ${ms(r.baselineIntervals.scanIntervalMs)}, pass every ${ms(r.baselineIntervals.passIntervalMs)}` +
      (r.mode === 'quick'
        ? ' (quick mode shrinks them and the CS durations by 10 together: development figures only, not the record).'
        : ' (production values).'),
    'opstream: `opstream run` with its defaults. Each system runs as child process(es) against its own Cosmos emulator child process (4 partitions)',
    'and its own CS simulator; the scripted workload runs on both at once, throughput one system at a time. Definitions below the tables.',
    '',
    '![opstream vs baseline](opstream-vs-baseline.svg)',
    '',
  );
  L.push(...scriptedTables(runs));
  L.push(...throughputTables(runs));
  L.push(...scaleOutTables(runs));
  L.push(...profileTables(runs));
  L.push(
    '### Definitions',
    '',
    "- **Reaction latency**: from the frontend's acknowledged Operation write to the first Clusters Service request the system makes about that operation's resource (the search or POST of a create, the PATCH of an update, the DELETE of a delete), timed by the CS simulator (`onCall`) in the harness process. Every operation kind makes such a call within a few Cosmos round trips of picking the operation up, in both systems.",
    "- **Completion lag**: from the instant CS reached the final state (ready after a create or update, gone after a delete) to the terminal write of the Operation (its `lastTransitionTime`). The final-state instant is the call that started the CS work (POST 201 / PATCH 200 / DELETE 204, timed by the simulator) plus that object's phase durations, which the harness drew from a seeded distribution keyed by name (`bench/harness/seeded-durations.ts`), identical for both systems.",
    "- **End-to-end**: frontend write → terminal write. **CS calls per operation**: every CS request during the workload ÷ operations. **Cosmos requests per operation**: emulator request counter during the workload minus the harness's own requests (frontend writes, counted client-side) ÷ operations. **RU per operation**: the same for the request units the emulator charged (its `x-ms-request-charge`, a cost model calibrated on the service's published figures: infra/cosmos-emulator/README.md). **Above the idle rate**: minus what the system is charged anyway over the same time while idle (its idle rate × the workload's wall time), the cost the operations themselves add. **Idle**: after the workload, nothing to do, for the idle period.",
    '- **Throughput**: operations whose ARM notification arrived after the warm-up and before the end of the window, per second; offered load is open-loop (written at a fixed rate, each the next step of a lifecycle or a new cluster). Saturated = below 90 % of the offered rate. CPU and peak RSS (VmHWM) from /proc of the instance child processes.',
    '',
  );
  if (many)
    L.push(`Runs: ${runs.map((x, i) => `${i + 1} = ${runDate(x)}, ${x.wallSeconds} s, commit ${x.commit ?? 'unknown'}`).join('; ')}.`, '');
  if (existsSync(NOTES_FILE)) L.push(readFileSync(NOTES_FILE, 'utf8').trim(), '');
  return L.join('\n');
}

function scriptedTables(runs: readonly BenchReport[]): string[] {
  const pairs = scriptedPairs(runs);
  if (pairs.length === 0) return [];
  const o0 = pairs[0].o;
  const L: string[] = [];
  const row = (name: string, pick: (s: ScriptedResult) => number | undefined, cell: (v: Array<number | undefined>) => string): string => {
    const bv = pairs.map((p) => pick(p.b));
    const ov = pairs.map((p) => pick(p.o));
    return `| ${name} | ${cell(bv)} | ${cell(ov)} | ${lowerSpread(bv, ov)} |`;
  };
  const lat = (name: string, k: keyof Summary, f: (s: ScriptedResult) => Summary): string => row(`${name} ${k}`, (s) => f(s)[k], spreadMs);
  const num =
    (digits: number) =>
    (v: Array<number | undefined>): string =>
      spread(v, digits);
  const same = (pick: (s: ScriptedResult) => string): string => {
    const values = [...new Set(pairs.map((p) => pick(p.b)))];
    const ovalues = [...new Set(pairs.map((p) => pick(p.o)))];
    return `| ${values.join(' · ')} | ${ovalues.join(' · ')} |`;
  };
  L.push(
    `### Scripted workload (${o0.operations} operations: ${o0.operations / 6} cluster lifecycles × 6 steps, over several subscriptions)`,
    '',
    'Each step is written once ARM was told the previous one is over, after a seeded think time of up to one baseline scan interval (the same for both systems), on a warmed-up instance.',
    '',
    '| figure | baseline | opstream | ratio |',
    '|---|---|---|---|',
    ...(['p50', 'p90', 'p99', 'max'] as const).map((k) => lat('reaction latency', k, (s) => s.reaction)),
    ...(['p50', 'p99'] as const).map((k) => lat('completion lag', k, (s) => s.completionLag)),
    ...(['p50', 'p99'] as const).map((k) => lat('end-to-end', k, (s) => s.endToEnd)),
    row('CS calls per operation', (s) => s.csCallsPerOp, num(2)),
    row('Cosmos requests per operation', (s) => s.cosmosRequestsPerOp, num(1)),
    row('Cosmos requests per operation above the idle rate', aboveIdle, num(1)),
    row('Cosmos requests per idle second', (s) => s.idleCosmosPerSecond, num(2)),
    row('CS calls per idle second', (s) => s.idleCsPerSecond, num(2)),
    row('request units (RU) per operation', (s) => s.requestUnitsPerOp, num(1)),
    row('RU per operation above the idle rate', unitsAboveIdle, num(1)),
    row('RU per idle second', (s) => s.idleRequestUnitsPerSecond, num(2)),
    row('CPU per operation (instance)', (s) => s.cpuMsPerOp, spreadMs),
    `| terminal states ${same((s) => JSON.stringify(s.byStatus))}  |`,
    `| ARM told exactly once ${same((s) => `${s.notifiedOnce}/${s.operations}`)}  |`,
    row('workload wall time', (s) => s.wallMs, spreadMs),
    '',
    'Per step (reaction p50 / p99, completion lag p50 / p99, CS calls about the resource while the operation ran):',
    '',
    '| step | baseline reaction | opstream reaction | baseline lag | opstream lag | baseline CS calls/op | opstream CS calls/op |',
    '|---|---|---|---|---|---|---|',
    ...Object.keys(o0.byStep).map((step) => {
      const steps = (pick: (p: (typeof pairs)[number]) => ScriptedResult): Array<StepFigures | undefined> =>
        pairs.map((p) => pick(p).byStep[step]);
      const pair = (xs: Array<StepFigures | undefined>, f: (s: StepFigures) => Summary): string => {
        const ss = present(xs).map(f);
        return ss.length ? `${spreadMs(ss.map((s) => s.p50))} / ${spreadMs(ss.map((s) => s.p99))}` : 'n/a';
      };
      const bs = steps((p) => p.b);
      const os = steps((p) => p.o);
      return `| ${step} | ${pair(bs, (s) => s.reaction)} | ${pair(os, (s) => s.reaction)} | ${pair(bs, (s) => s.completionLag)} | ${pair(os, (s) => s.completionLag)} | ${spread(
        bs.map((s) => s?.csCallsPerOp),
        2,
      )} | ${spread(
        os.map((s) => s?.csCallsPerOp),
        2,
      )} |`;
    }),
    '',
    `Machine during this phase: ${pairs
      .map(
        ({ run }, i) =>
          `${pairs.length > 1 ? `run ${i + 1}: ` : ''}${fmt(run.scriptedMachine.busyCores, 2)} of 2 cores busy, load average ${fmt(run.scriptedMachine.loadAverage[0], 1)} → ${fmt(run.scriptedMachine.loadAverage[1], 1)}`,
      )
      .join('; ')}.`,
  );
  if (pairs.every((p) => p.b.requestUnitsPerOpByKind && p.o.requestUnitsPerOpByKind)) {
    const meanShares = (pick: (p: (typeof pairs)[number]) => Partial<Record<string, number>> | undefined, digits = 1): string =>
      shares(meanByKey(pairs.map(pick)), digits);
    L.push(
      `Where the RUs went, per operation (the emulator's charges by kind of request, minus the harness's own${pairs.length > 1 ? '; means over the runs' : ''}) — baseline: ${meanShares((p) => p.b.requestUnitsPerOpByKind)}; opstream: ${meanShares((p) => p.o.requestUnitsPerOpByKind)}.` +
        ` Per idle second — baseline: ${meanShares((p) => p.b.idleRequestUnitsPerSecondByKind, 2)}; opstream: ${meanShares((p) => p.o.idleRequestUnitsPerSecondByKind, 2)}.` +
        ' Charges follow the emulator\'s documented cost model (infra/cosmos-emulator/README.md, "Request charges"), calibrated on the service\'s published figures.',
    );
  }
  const unattributed = (pick: (p: (typeof pairs)[number]) => ScriptedResult): string =>
    spread(
      pairs.map((p) => pick(p).unattributed),
      0,
    );
  L.push(
    `CS calls by endpoint${pairs.length > 1 ? ' (mean over the runs, range)' : ''} — baseline: ${endpoints(pairs.map((p) => p.b.csCallsByEndpoint))}; opstream: ${endpoints(pairs.map((p) => p.o.csCallsByEndpoint))}.` +
      (pairs.some((p) => p.b.unattributed || p.o.unattributed)
        ? ` Operations without a CS-side timing (adopted, never started in CS): baseline ${unattributed((p) => p.b)}, opstream ${unattributed((p) => p.o)}.`
        : ''),
    '',
  );
  return L;
}

function throughputTables(runs: readonly BenchReport[]): string[] {
  const sweep = levelsOf(runs, (x) => x.sweep);
  if (sweep.length === 0) return [];
  const many = runs.length > 1;
  const f = (levels: Array<LevelResult | undefined>, pick: (l: LevelResult) => number | undefined, digits = 1): string =>
    spread(
      levels.map((l) => (l ? pick(l) : undefined)),
      digits,
    );
  const t = (levels: Array<LevelResult | undefined>, pick: (l: LevelResult) => number | undefined): string =>
    spreadMs(levels.map((l) => (l ? pick(l) : undefined)));
  const saturated = (levels: Array<LevelResult | undefined>): string => {
    const n = present(levels).filter((l) => l.saturated).length;
    return n === 0 ? '' : n === present(levels).length ? ' (saturated)' : ` (saturated in ${n} of ${present(levels).length})`;
  };
  const L: string[] = [
    '### Throughput (one instance, open-loop offered load, short CS durations)',
    '',
    '| system | offered ops/s | completed ops/s | e2e p50 | e2e p99 | open at window end | instance CPU (cores) | CPU per op | Cosmos req/op | RU/op | CS calls/op | peak RSS MiB |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...sweep.map((levels) => {
      const l0 = present(levels)[0];
      return `| ${l0.system} | ${l0.rate} | ${f(levels, (l) => l.completedPerSecond)}${saturated(levels)} | ${t(levels, (l) => l.endToEnd.p50)} | ${t(levels, (l) => l.endToEnd.p99)} | ${f(levels, (l) => l.openAtWindowEnd, 0)} | ${f(levels, (l) => l.cpuCores, 2)} | ${t(levels, (l) => l.cpuMsPerOp)} | ${f(levels, (l) => l.cosmosRequestsPerOp)} | ${f(levels, (l) => l.requestUnitsPerOp)} | ${f(levels, (l) => l.csCallsPerOp, 2)} | ${f(levels, (l) => mebibytes(l.peakRssBytes), 0)} |`;
    }),
    '',
  ];
  runs.forEach((run, i) => {
    for (const l of run.sweep.filter((x) => x.system === 'baseline' && (x.reported ?? []).length > 0)) {
      const st = l.reported[0] as { scans?: number; passes?: number; maxPassMs?: number; lastPassMs?: number; listed?: number };
      L.push(
        `- ${many ? `run ${i + 1}, ` : ''}baseline @ ${l.rate} ops/s: ${st.scans} scans, ${st.passes} passes, longest pass ${ms(st.maxPassMs)} (last ${ms(st.lastPassMs)}), ${st.listed} operations listed by the last scan.`,
      );
    }
  });
  L.push(
    '',
    `Each measurement${many ? ' of each run' : ''}: what it completed and where the machine's CPU went meanwhile (cores; the machine has 2; "others" = processes that are not part of the benchmark), the load average, the frontend's write latency, and opstream's own means (subscription-lock wait, CS call duration):`,
    '',
    `| level |${many ? ' run |' : ''} completed ops/s | instance(s) | harness (frontend, CS sim, ARM receiver, load) | emulator | others | load avg | frontend write p50 / p99 | lock wait mean | CS call mean |`,
    `|---|${many ? '---|' : ''}---|---|---|---|---|---|---|---|---|`,
    ...[...sweep, ...levelsOf(runs, (x) => x.scaleOut)].flatMap((levels) =>
      levels.flatMap((l, i) =>
        l
          ? [
              `| ${label(l)} |${many ? ` ${i + 1} |` : ''} ${fmt(l.completedPerSecond)} | ${fmt(l.cpuCores, 2)} | ${fmt(l.harnessCores, 2)} | ${fmt(l.emulatorCores, 2)} | ${fmt(l.otherCores, 2)} | ${fmt(l.loadAverage[0], 1)} → ${fmt(l.loadAverage[1], 1)} | ${ms(l.frontendWrite.p50)} / ${ms(l.frontendWrite.p99)} | ${ms(l.internal.opstream_lock_wait_seconds?.meanMs)} | ${ms(l.internal.opstream_cs_call_duration_seconds?.meanMs)} |`,
            ]
          : [],
      ),
    ),
    '',
  );
  const meanCompleted = (levels: Array<LevelResult | undefined>): number => mean(present(levels).map((l) => l.completedPerSecond));
  const bySystem = (system: string): Array<Array<LevelResult | undefined>> =>
    sweep.filter((levels) => present(levels)[0].system === system);
  const best = (system: string): Array<LevelResult | undefined> | undefined =>
    [...bySystem(system)].sort((x, y) => meanCompleted(y) - meanCompleted(x))[0];
  const highest = (system: string): Array<LevelResult | undefined> | undefined =>
    [...bySystem(system)].sort((x, y) => present(y)[0].rate - present(x)[0].rate)[0];
  const bb = best('baseline');
  const ob = best('opstream');
  if (bb && ob) {
    const rss = (levels: Array<LevelResult | undefined> | undefined): string =>
      levels ? `${f(levels, (l) => mebibytes(l.peakRssBytes), 0)} at ${present(levels)[0].rate} ops/s offered` : 'n/a';
    L.push(
      `Best measured${many ? ' (by the mean over the runs)' : ''}: opstream ${f(ob, (l) => l.completedPerSecond)} ops/s at ${present(ob)[0].rate} offered vs baseline ${f(bb, (l) => l.completedPerSecond)} ops/s at ${present(bb)[0].rate} offered (the baseline was offered at most ${Math.max(...bySystem('baseline').map((levels) => present(levels)[0].rate))} ops/s).` +
        ` Peak RSS (MiB) at the highest load: opstream ${rss(highest('opstream'))}, baseline ${rss(highest('baseline'))}.`,
      '',
    );
    const kinds = meanByKey(present(ob).map((l) => l.cosmosByKind));
    if (Object.keys(kinds).length) {
      L.push(
        `Where opstream's Cosmos requests went at ${present(ob)[0].rate} ops/s offered (its own \`opstream_cosmos_requests_total\` over the whole level, warm-up and drain included${many ? '; means over the runs' : ''}): ${percentShares(kinds)}.`,
        '',
      );
      const ru = meanByKey(present(ob).map((l) => l.requestUnitsByKind));
      if (Object.keys(ru).length)
        L.push(
          `…and its request units (\`opstream_cosmos_request_units_total\`, the charges the answers stated): ${percentShares(ru)}.`,
          '',
        );
    }
  }
  return L;
}

function scaleOutTables(runs: readonly BenchReport[]): string[] {
  const r = runs[0];
  const L: string[] = [];
  const skipped = [...new Set(present(runs.map((x) => x.scaleOutSkipped)))];
  if (skipped.length) L.push('### Scale-out', '', ...skipped, '');
  const scale = levelsOf(runs, (x) => x.scaleOut);
  if (scale.length === 0) return L;
  const oneOf = (runIndex: number): number | undefined => runs[runIndex].scaleOut.find((l) => l.instances === 1)?.completedPerSecond;
  const cap = r.scaleOutCpu && 'mechanism' in r.scaleOutCpu ? r.scaleOutCpu : undefined;
  const most = Math.max(...present(scale.flat()).map((l) => l.instances));
  const offered =
    r.scaleOutRatePerInstance !== undefined ? `${r.scaleOutRatePerInstance} ops/s offered per instance` : `${r.scaleOutRate} ops/s offered`;
  const f = (levels: Array<LevelResult | undefined>, pick: (l: LevelResult, run: number) => number | undefined, digits = 1): string =>
    spread(
      levels.map((l, i) => (l ? pick(l, i) : undefined)),
      digits,
    );
  L.push(
    `### Scale-out (opstream, ${offered}, 4 feed ranges, ${cap ? `each instance capped at ${cap.perInstanceCores} core` : 'instances not capped'}; the baseline cannot share work: upstream ran one active instance)`,
    '',
    cap
      ? `Each instance runs in a ${cap.mechanism} group of its own with a CPU quota of ${cap.perInstanceCores} core. The quota is there so that the machine is not the bottleneck:` +
          ' uncapped, one instance at its capacity, the emulator and the harness already keep this 2-core machine nearly busy and a second instance has no core to run on.' +
          ` ${most} × ${cap.perInstanceCores} = ${fmt(most * cap.perInstanceCores, 2)} core leaves the rest to the emulator and the harness, so the gain vs 1 shows how the design shares the work (leases over the feed ranges, subscription locks);` +
          ` the absolute ops/s are those of ${cap.perInstanceCores}-core instances.` +
          (r.scaleOutRatePerInstance !== undefined
            ? ` n instances are offered n × ${r.scaleOutRatePerInstance} ops/s, a little more than n capped instances complete, so each level is saturated by the same margin (one rate high enough for ${most} would swamp one instance, which then spends its quota following the backlog).`
            : '') +
          ' "Throttled" = share of the 100 ms quota periods in which an instance had used up its quota (near 100 %: the instances were the bottleneck; well below, or "machine busy" near 2: something else was).'
      : `No CPU quota was set${r.scaleOutCpu && 'unavailable' in r.scaleOutCpu ? ` (${r.scaleOutCpu.unavailable})` : ''}: the instances ran unconstrained, so beyond one instance the figures show how many cores this machine has spare, not how the design scales.`,
    '',
    '| instances | offered ops/s | completed ops/s | gain vs 1 | CPU of the instances (cores) | per instance | throttled % | machine busy (of 2) | e2e p50 | e2e p99 |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...scale.map((levels) => {
      const l0 = present(levels)[0];
      const perInstance = levels
        .map((l, i) => (l ? `${runs.length > 1 ? `${i + 1}: ` : ''}${(l.perInstanceCores ?? []).map((c) => fmt(c, 2)).join(' / ')}` : ''))
        .filter(Boolean)
        .join(' · ');
      return `| ${l0.instances} | ${l0.rate} | ${f(levels, (l) => l.completedPerSecond)} | ${f(levels, (l, i) => l.completedPerSecond / (oneOf(i) ?? NaN), 2).replace(/^([\d.]+)/, '$1×')} | ${f(levels, (l) => l.cpuCores, 2)} | ${perInstance} | ${f(levels, (l) => (l.throttledShare === undefined ? undefined : l.throttledShare * 100), 0)} | ${f(levels, (l) => l.machineBusyCores, 2)} | ${spreadMs(levels.map((l) => l?.endToEnd.p50))} | ${spreadMs(levels.map((l) => l?.endToEnd.p99))} |`;
    }),
    '',
  );
  return L;
}

function profileTables(runs: readonly BenchReport[]): string[] {
  const profiles = present(runs.map((x) => x.profile));
  if (profiles.length === 0) return [];
  const many = profiles.length > 1;
  const rowsOf = (pick: (p: ProfileSummary) => ProfileShare[], limit: number): Array<[string, Array<number | undefined>]> => {
    const names = [...new Set(profiles.flatMap((p) => pick(p).map((s) => s.name)))];
    const rows = names.map((name): [string, Array<number | undefined>] => [
      name,
      profiles.map((p) => (pick(p).find((s) => s.name === name)?.share ?? 0) * 100),
    ]);
    return rows.sort((x, y) => mean(finite(y[1])) - mean(finite(x[1]))).slice(0, limit);
  };
  const conditions = profiles
    .map(
      (p, i) =>
        `${many ? `run ${i + 1}: ` : ''}${p.level.rate} ops/s offered, ${fmt(p.level.completedPerSecond)} completed, ${fmt(p.durationSeconds, 0)} s profiled, busy ${Math.round(p.busyShare * 100)} % of one core`,
    )
    .join('; ');
  return [
    `### Where one opstream instance spends its CPU (node --cpu-prof; ${conditions})`,
    '',
    `| area | share of busy time %${many ? " (mean, range; 0 = not among that run's areas)" : ''} |`,
    '|---|---|',
    ...rowsOf((p) => p.areas, 20).map(([name, v]) => `| ${name} | ${spread(v, 1)} |`),
    '',
    `| top functions (self time) | share %${many ? " (mean, range; 0 = not in that run's top list)" : ''} |`,
    '|---|---|',
    ...rowsOf((p) => p.topFunctions, Math.max(...profiles.map((p) => p.topFunctions.length))).map(
      ([name, v]) => `| \`${name}\` | ${spread(v, 1)} |`,
    ),
    '',
  ];
}

/** RU per operation minus what the system is charged anyway while idle over the same time. */
export function unitsAboveIdle(s: ScriptedResult): number | undefined {
  if (s.requestUnitsPerOp === undefined || s.idleRequestUnitsPerSecond === undefined) return undefined;
  return s.requestUnitsPerOp - (s.idleRequestUnitsPerSecond * s.wallMs) / 1000 / s.operations;
}

/** `write 45 %, pointRead 41 %, …` */
function percentShares(byKind: Record<string, number>): string {
  const total = Object.values(byKind).reduce((a, v) => a + v, 0);
  return Object.entries(byKind)
    .sort((a, b) => b[1] - a[1])
    .map(([kind, n]) => `${kind} ${Math.round((n / total) * 100)} %`)
    .join(', ');
}

/** Cosmos requests per operation minus what the system spends anyway while idle over the same time. */
function aboveIdle(s: ScriptedResult): number {
  return s.cosmosRequestsPerOp - (s.idleCosmosPerSecond * s.wallMs) / 1000 / s.operations;
}

/** Calls by endpoint over the runs, most first: `GET /clusters 111 (109–113), …`. */
function endpoints(counts: ReadonlyArray<Record<string, number>>): string {
  const means = meanByKey(counts);
  return Object.keys(means)
    .sort((a, b) => means[b] - means[a])
    .map(
      (e) =>
        `${e} ${spread(
          counts.map((c) => c[e] ?? 0),
          0,
        )}`,
    )
    .join(', ');
}

export function renderSvg(input: BenchReport | readonly BenchReport[]): string {
  const runs: readonly BenchReport[] = Array.isArray(input) ? input : [input as BenchReport];
  const r = runs[0];
  const pairs = scriptedPairs(runs);
  const m = (values: ReadonlyArray<number | undefined>): number => mean(finite(values));
  const series = [
    { name: 'baseline', color: COLORS.baseline },
    { name: 'opstream', color: COLORS.opstream },
  ];
  const panels: string[][] = [];
  if (pairs.length) {
    const bars = (f: (s: ScriptedResult) => number | undefined): number[] => [m(pairs.map((p) => f(p.b))), m(pairs.map((p) => f(p.o)))];
    panels.push(
      barPanelLog('Latency (scripted workload, log scale)', series, [
        { label: 'react p50', values: bars((s) => s.reaction.p50) },
        { label: 'react p99', values: bars((s) => s.reaction.p99) },
        { label: 'lag p50', values: bars((s) => s.completionLag.p50) },
        { label: 'lag p99', values: bars((s) => s.completionLag.p99) },
        { label: 'e2e p99', values: bars((s) => s.endToEnd.p99) },
      ]),
    );
    if (pairs.every((p) => p.b.requestUnitsPerOp !== undefined && p.o.requestUnitsPerOp !== undefined)) {
      panels.push(
        barPanelLog('Cosmos cost (request units, log scale)', series, [
          { label: 'RU/op', values: bars((s) => s.requestUnitsPerOp) },
          { label: 'RU/op over idle', values: bars(unitsAboveIdle) },
          { label: 'RU/idle s', values: bars((s) => s.idleRequestUnitsPerSecond) },
        ]),
      );
    }
  }
  const sweep = levelsOf(runs, (x) => x.sweep);
  const line = (system: string): Array<[number, number]> =>
    sweep
      .filter((levels) => present(levels)[0].system === system)
      .map((levels): [number, number] => [present(levels)[0].rate, m(levels.map((l) => l?.completedPerSecond))]);
  const maxRate = Math.max(...present(sweep.flat()).map((l) => l.rate), 1);
  panels.push(
    linePanel(`Throughput, one instance${runs.length > 1 ? ` (mean of ${runs.length} runs)` : ''}`, 'offered ops/s', 'completed ops/s', [
      { name: 'baseline', color: COLORS.baseline, points: line('baseline') },
      { name: 'opstream', color: COLORS.opstream, points: line('opstream') },
      {
        name: 'offered',
        color: '#999',
        points: [
          [0, 0],
          [maxRate, maxRate],
        ],
        dashed: true,
      },
    ]),
  );
  const scale = levelsOf(runs, (x) => x.scaleOut);
  if (scale.length) {
    const cap = r.scaleOutCpu && 'mechanism' in r.scaleOutCpu ? `${r.scaleOutCpu.perInstanceCores} core per instance` : 'uncapped';
    const offered = r.scaleOutRatePerInstance !== undefined ? `${r.scaleOutRatePerInstance} ops/s offered each` : `${r.scaleOutRate} ops/s`;
    const points: Array<[number, number]> = scale.map((levels) => [
      present(levels)[0].instances,
      m(levels.map((l) => l?.completedPerSecond)),
    ]);
    const one = points.find(([n]) => n === 1)?.[1] ?? NaN;
    panels.push(
      linePanel(`opstream scale-out, ${cap}`, `instances (${offered})`, 'completed ops/s', [
        { name: 'opstream', color: COLORS.opstream, points },
        // What a linear gain from one instance would give.
        {
          name: 'linear',
          color: '#999',
          points: Number.isFinite(one) ? points.map(([n]): [number, number] => [n, n * one]) : [],
          dashed: true,
        },
      ]),
    );
  }
  const when = runs.length > 1 ? `${runs.length} runs, ${r.date.slice(0, 10)}` : r.date.slice(0, 16);
  return svgDocument(panels, `npm run bench${r.mode === 'quick' ? ' -- --quick' : ''} · ${when} · ${r.machine}`);
}

/** Replaces (or appends) the section in its page (bench/results/opstream-vs-baseline.md) and writes the SVG beside it. */
export function recordResults(runs: BenchReport | readonly BenchReport[]): void {
  writeFileSync(SVG_FILE, renderSvg(runs));
  const section = renderSection(runs);
  const current = existsSync(RESULTS_FILE) ? readFileSync(RESULTS_FILE, 'utf8') : '# Benchmark results\n';
  const start = current.indexOf(SECTION);
  let next: string;
  if (start < 0) {
    next = `${current.trimEnd()}\n\n${section}`;
  } else {
    const after = current.indexOf('\n## ', start + SECTION.length);
    next = current.slice(0, start) + section + (after < 0 ? '' : `\n${current.slice(after + 1)}`);
  }
  writeFileSync(RESULTS_FILE, next.endsWith('\n') ? next : `${next}\n`);
}
