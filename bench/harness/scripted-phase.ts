/**
 * The scripted workload, run on one system: per subscription, cluster lifecycles (create cluster →
 * create node pool → update node pool → update cluster → delete node pool → delete cluster), each
 * step issued when ARM was told the previous one is over, after a seeded think time; CS durations
 * from SCRIPTED_PROFILE. Then
 * an idle period with nothing to do. Measures reaction, completion lag, end-to-end, CS calls and
 * Cosmos requests per operation, and Cosmos requests / CS calls per idle second.
 */
import { runWorkload, type FrontendHintsOptions, type Step, type WrittenOperation } from '@opstream/frontend-simulator';
import { ChangeTap } from './change-tap';
import { readOutcomes, timingOf, type OperationOutcome } from './op-timing';
import { seededDurationsFor, SCRIPTED_PROFILE } from './seeded-durations';
import type { Stack } from './stack';
import { summarize, type Summary } from './stats';
import { ThinkingFrontend } from './thinking-frontend';
import type { SystemUnderTest } from './system-under-test';
import {
  per,
  perContainer,
  systemRequestsByContainer,
  systemUnits,
  systemUnitsByContainer,
  type UnitsByContainer,
  type UnitsByKind,
} from './request-units';
import { readBreakdown, type StepBreakdown } from './read-breakdown';

export interface ScriptedOptions {
  readonly subscriptions: number;
  readonly clustersPerSubscription: number;
  readonly seed: number;
  /** Multiplies the drawn CS durations (quick mode shrinks them with the baseline's intervals). */
  readonly durationScale: number;
  readonly idleMs: number;
  readonly terminalTimeoutMs: number;
  readonly database: string;
  /** Before measuring, one cluster create on another subscription (a long-running instance is warm). */
  readonly warmUp: boolean;
  /** ARM client think time before each request, at most (see ThinkingFrontend). */
  readonly maxThinkMs: number;
  /** The frontend sends a wake-up hint after each Operation write. @defaultValue none */
  readonly hints?: FrontendHintsOptions;
  /** Follow the system's `changes` tap to measure pickup (opstream only). @defaultValue false */
  readonly tapPickup?: boolean;
  /** Told of each measured Operation written and its step (the warm-up's is not measured). */
  readonly onOperation?: (op: WrittenOperation, step: Step) => void;
}

export interface ScriptedResult {
  readonly system: string;
  readonly operations: number;
  readonly byStatus: Record<string, number>;
  readonly notifiedOnce: number;
  readonly reaction: Summary;
  readonly completionLag: Summary;
  readonly endToEnd: Summary;
  readonly csCallsPerOp: number;
  readonly csCallsByEndpoint: Record<string, number>;
  readonly cosmosRequestsPerOp: number;
  readonly idleCosmosPerSecond: number;
  /** Request units the system was charged per operation (emulator counters minus the harness's), in all and by kind. */
  readonly requestUnitsPerOp?: number;
  readonly requestUnitsPerOpByKind?: UnitsByKind;
  /** The same by container (leases, Operations, Resources, locks…), with their kinds. */
  readonly requestUnitsPerOpByContainer?: UnitsByContainer;
  readonly idleRequestUnitsPerSecondByContainer?: UnitsByContainer;
  /** Requests per operation by container and kind (the workload's window, not net of the idle rate). */
  readonly requestsPerOpByContainer?: UnitsByContainer;
  /** …and per second of the idle period, in all and by kind. */
  readonly idleRequestUnitsPerSecond?: number;
  readonly idleRequestUnitsPerSecondByKind?: UnitsByKind;
  readonly idleCsPerSecond: number;
  /** Change-feed requests (any answer) per second of the idle period, all ranges together. */
  readonly idleChangeFeedPerSecond?: number;
  /** With `tapPickup`: first arrival on the `changes` tap − the write, overall and (with hints) split as below. */
  readonly pickup?: Summary;
  readonly pickupHinted?: Summary;
  readonly pickupHintLost?: Summary;
  /** With hints: reaction of the operations whose hint Service Bus took, and of those whose hint was lost. */
  readonly reactionHinted?: Summary;
  readonly reactionHintLost?: Summary;
  readonly wallMs: number;
  readonly cpuMsPerOp: number | undefined;
  /** Operations whose timings could not be attributed (no CS call found …). */
  readonly unattributed: number;
  /** The same figures per workload step. */
  readonly byStep: Record<string, StepFigures>;
  /** CS calls per operation by step and by what they were (bench/harness/read-breakdown.ts). */
  readonly callsByStepAndBucket?: Record<string, StepBreakdown>;
}

export interface StepFigures {
  readonly operations: number;
  readonly reaction: Summary;
  readonly completionLag: Summary;
  /** CS calls about the resource while the operation ran, per operation. */
  readonly csCallsPerOp: number;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export async function runScripted(stack: Stack, system: SystemUnderTest, options: ScriptedOptions): Promise<ScriptedResult> {
  stack.cs.admin.reset();
  stack.callLog.clear();
  stack.setDurationsFor(seededDurationsFor(SCRIPTED_PROFILE, options.seed, options.durationScale));
  await stack.useDatabase(options.database);
  const instance = await system.start(stack.target, { instanceName: `${system.name}-scripted` });
  await system.settled([instance], 60_000);
  if (options.warmUp) {
    await runWorkload({
      frontend: stack.frontend,
      subscriptions: 1,
      clustersPerSubscription: 1,
      steps: ['createCluster'],
      seed: options.seed + 1_000,
      waitForTerminal: async (op) =>
        String(((await stack.receiver.waitForNotification(op.operationId, options.terminalTimeoutMs)).body as { status: unknown }).status),
    });
  }
  const cpuBefore = instance.sample()?.cpuMs;
  const tap = options.tapPickup && instance.opsUrl ? await ChangeTap.open(instance.opsUrl) : undefined;

  const written: Array<{ op: WrittenOperation; step: Step }> = [];
  const before = await stack.emulator.counters();
  const harnessBefore = stack.cosmos.requests();
  const harnessUnitsBefore = stack.cosmos.requestUnits();
  const harnessByContainerBefore = stack.cosmos.requestUnitsByContainer();
  const harnessRequestsBefore = stack.cosmos.requestsByContainer();
  const t0 = Date.now();
  const frontend = new ThinkingFrontend(
    {
      database: stack.database,
      notificationBaseUrl: stack.receiver.url,
      owner: `frontend-${stack.label}`,
      ...(options.hints ? { hints: options.hints } : {}),
    },
    options.maxThinkMs,
    options.seed,
  );
  // A frontend in service has its hint link open long before: the first hint is not a connection set-up.
  await frontend.openHints();
  const result = await runWorkload({
    frontend,
    subscriptions: options.subscriptions,
    clustersPerSubscription: options.clustersPerSubscription,
    seed: options.seed,
    waitForTerminal: async (op) =>
      String(((await stack.receiver.waitForNotification(op.operationId, options.terminalTimeoutMs)).body as { status: unknown }).status),
    onOperation: (op, step) => {
      written.push({ op, step });
      options.onOperation?.(op, step);
    },
  });
  const t1 = Date.now();
  const after = await stack.emulator.counters();
  const harnessAfter = stack.cosmos.requests();
  const harnessUnitsAfter = stack.cosmos.requestUnits();
  const harnessByContainerAfter = stack.cosmos.requestUnitsByContainer();
  const harnessRequestsAfter = stack.cosmos.requestsByContainer();
  const cpuAfter = instance.sample()?.cpuMs;
  const csCalls = stack.callLog.countBetween(t0, t1);
  const byEndpoint: Record<string, number> = {};
  for (const c of stack.callLog.calls) if (c.at >= t0 && c.at <= t1) byEndpoint[c.endpoint] = (byEndpoint[c.endpoint] ?? 0) + 1;

  // Idle: nothing left to do; what does the system cost per second?
  await sleep(1_000);
  const idleStart = await stack.emulator.counters();
  const idleHarness = stack.cosmos.requests();
  const idleHarnessUnits = stack.cosmos.requestUnits();
  const idleHarnessByContainer = stack.cosmos.requestUnitsByContainer();
  const i0 = Date.now();
  await sleep(options.idleMs);
  const idleEnd = await stack.emulator.counters();
  const i1 = Date.now();
  const idleUnits = systemUnits(idleStart, idleEnd, idleHarnessUnits, stack.cosmos.requestUnits());
  const idleUnitsByContainer = systemUnitsByContainer(idleStart, idleEnd, idleHarnessByContainer, stack.cosmos.requestUnitsByContainer());
  const idleCs = stack.callLog.countBetween(i0, i1);
  const idleCosmos = idleEnd.total - idleStart.total - (stack.cosmos.requests() - idleHarness);
  const changeFeedRequests = (c: typeof idleEnd): number => c.changeFeed200 + c.changeFeed304 + c.changeFeedOther;
  await tap?.close();
  await instance.stop();
  await frontend.close();

  const outcomes: OperationOutcome[] = await readOutcomes(
    stack.database.container('Operations'),
    written.map((w) => w.op),
  );
  const timings = outcomes.map((o) => timingOf(o, stack.callLog, SCRIPTED_PROFILE, options.seed, options.durationScale));
  const defined = (xs: Array<number | undefined>): number[] => xs.filter((x): x is number => x !== undefined);
  const byStep: Record<string, StepFigures> = {};
  for (const step of [...new Set(written.map((w) => w.step))]) {
    const mine = timings.filter((_, i) => written[i].step === step);
    byStep[step] = {
      operations: mine.length,
      reaction: summarize(defined(mine.map((t) => t.reactionMs))),
      completionLag: summarize(defined(mine.map((t) => t.completionLagMs))),
      csCallsPerOp: mine.reduce((sum, t) => sum + t.csCalls, 0) / mine.length,
    };
  }
  const ops = written.length;
  const sutCosmos = after.total - before.total - (harnessAfter - harnessBefore);
  const units = systemUnits(before, after, harnessUnitsBefore, harnessUnitsAfter);
  const unitsByContainer = systemUnitsByContainer(before, after, harnessByContainerBefore, harnessByContainerAfter);
  const idleSeconds = (i1 - i0) / 1000;
  return {
    system: system.name,
    operations: ops,
    byStatus: result.byStatus,
    notifiedOnce: written.filter((w) => stack.receiver.countFor(w.op.operationId) === 1).length,
    reaction: summarize(defined(timings.map((t) => t.reactionMs))),
    completionLag: summarize(defined(timings.map((t) => t.completionLagMs))),
    endToEnd: summarize(defined(timings.map((t) => t.endToEndMs))),
    csCallsPerOp: csCalls / ops,
    csCallsByEndpoint: byEndpoint,
    cosmosRequestsPerOp: sutCosmos / ops,
    idleCosmosPerSecond: idleCosmos / idleSeconds,
    requestUnitsPerOp: (units.total ?? 0) / ops,
    requestUnitsPerOpByKind: per(units, ops),
    requestUnitsPerOpByContainer: perContainer(unitsByContainer, ops),
    requestsPerOpByContainer: perContainer(systemRequestsByContainer(before, after, harnessRequestsBefore, harnessRequestsAfter), ops),
    idleRequestUnitsPerSecondByContainer: perContainer(idleUnitsByContainer, idleSeconds),
    idleRequestUnitsPerSecond: (idleUnits.total ?? 0) / idleSeconds,
    idleRequestUnitsPerSecondByKind: per(idleUnits, idleSeconds),
    idleCsPerSecond: idleCs / ((i1 - i0) / 1000),
    // The harness reads no change feed: every change-feed request is the system's.
    idleChangeFeedPerSecond: (changeFeedRequests(idleEnd) - changeFeedRequests(idleStart)) / idleSeconds,
    ...(tap
      ? (() => {
          const pickupOf = (keep: (op: WrittenOperation) => boolean): Summary =>
            summarize(
              defined(
                written
                  .filter((w) => keep(w.op))
                  .map((w) => {
                    const at = tap.seenAt(w.op.operationId);
                    return at === undefined ? undefined : at - w.op.writtenAt;
                  }),
              ),
            );
          return {
            pickup: pickupOf(() => true),
            ...(options.hints
              ? { pickupHinted: pickupOf((op) => op.hintSent === true), pickupHintLost: pickupOf((op) => op.hintSent === false) }
              : {}),
          };
        })()
      : {}),
    ...(options.hints
      ? {
          reactionHinted: summarize(defined(timings.filter((_, i) => written[i].op.hintSent === true).map((t) => t.reactionMs))),
          reactionHintLost: summarize(defined(timings.filter((_, i) => written[i].op.hintSent === false).map((t) => t.reactionMs))),
        }
      : {}),
    wallMs: t1 - t0,
    cpuMsPerOp: cpuBefore !== undefined && cpuAfter !== undefined ? (cpuAfter - cpuBefore) / ops : undefined,
    byStep,
    callsByStepAndBucket: readBreakdown(stack.callLog, written, outcomes, timings),
    unattributed: timings.filter((t) => t.reactionMs === undefined || t.completionLagMs === undefined).length,
  };
}
