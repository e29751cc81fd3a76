import { hostname } from 'node:os';
import type { BackoffPolicy } from './util/backoff';
import type { Clock } from './util/clock';
import { systemClock } from './util/clock';
import { silentLogger, type ChangeFeedLogger } from './logger';
import { ChangeFeedConfigurationError } from './errors';

/**
 * Where a lease starts reading when it is created. The position is resolved and persisted in the
 * lease document at creation time ("now" becomes the range's current LSN, a time becomes the LSN
 * just before the first change after it), so a restart before the first checkpoint never skips a
 * change. A lease that already exists always resumes from its own continuation.
 */
export type StartFrom = 'beginning' | 'now' | { time: Date };

/** Tunables of a change feed processor. Every field is optional; `DEFAULTS` holds the values. */
export interface ChangeFeedProcessorOptions {
  /** Lease-id prefix shared by every instance of one logical processor. Required. */
  processorName: string;
  /** This instance's name, written as the lease `Owner`. @defaultValue `{hostname}-{pid}-{random}` */
  instanceName?: string;
  /** Start position of leases created by this processor. @defaultValue 'now' */
  startFrom?: StartFrom;
  /** Maximum documents per batch (change feed page). @defaultValue 100 */
  maxItemCount?: number;
  /**
   * Period of the balancing cycle (read all leases once, acquire/steal, notice lost leases). Settled,
   * an instance reads all leases once every `workers` cycles and only the watched owner's in between. @defaultValue 5_000
   */
  leaseAcquireIntervalMs?: number;
  /**
   * How often, at most, a balancing cycle's lease listing also reads the leases of other processors
   * on the same monitored container (one query either way; see `ChangeFeedProcessor.otherProcessors`);
   * 0 never. @defaultValue 60_000
   */
  otherProcessorsIntervalMs?: number;
  /** A lease not written (renewed or checkpointed) for this long is renewed. Must be below `leaseExpirationMs`. @defaultValue 15_000 */
  leaseRenewIntervalMs?: number;
  /** A lease whose `timestamp` is older than this is expired and may be taken by anyone. @defaultValue 45_000 */
  leaseExpirationMs?: number;
  /** Delay before the next read after a full page (a backlog); 0 reads again at once. @defaultValue 0 */
  minPollDelayMs?: number;
  /** Ceiling of the delay between reads of an idle range: the idle cost knob (1000 / max = idle requests per second per range). @defaultValue 1_000 */
  maxPollDelayMs?: number;
  /**
   * For this long after a read that brought changes, a range is active: an empty read waits
   * `activePollDelayMs` instead of climbing to `maxPollDelayMs`; after the window each empty read
   * doubles the pause up to the ceiling. Changes come in bursts, so this buys the reaction of a short
   * pause for the changes that follow one, at the idle cost of the ceiling. 0 = no window (the ramp,
   * `pollDelayRampSteps`, decides). @defaultValue 10_000
   */
  activeWindowMs?: number;
  /** Pause between reads of an active range (see `activeWindowMs`); capped at `maxPollDelayMs`. @defaultValue 100 */
  activePollDelayMs?: number;
  /**
   * Without an active window (`activeWindowMs: 0`), consecutive empty reads it takes to reach
   * `maxPollDelayMs`: after the n-th empty read the delay is `maxPollDelayMs / 2^(steps - n)` (never
   * below `minPollDelayMs`); a page that is not full counts as the first. 0 jumps straight to the
   * ceiling, as .NET does, and a change then costs no read beyond its own page. @defaultValue 4
   */
  pollDelayRampSteps?: number;
  /** Most leases this instance holds at once. @defaultValue Infinity */
  maxLeasesPerInstance?: number;
  /** Most leases acquired (taken or stolen) in one balancing cycle; with free leases left for this instance's share, the next cycle comes at once. @defaultValue 8 */
  leasesAcquiredPerCycle?: number;
  /** A change feed read that takes longer is abandoned and retried (the lease is kept). @defaultValue 15_000 */
  readTimeoutMs?: number;
  /**
   * A reader that completes no read and no handler attempt for this long is stalled: it gives its
   * lease up so another reader (or a fresh one here) takes over. Must exceed `readTimeoutMs`.
   * @defaultValue 60_000
   */
  stallTimeoutMs?: number;
  /**
   * Checkpoint a lease at most this often (0 = after every batch): a checkpoint is due once the
   * lease went this long without a write of any kind (a renewal counts). One held back is written
   * by the next read loop once due, by the next renewal (which then writes nothing else),
   * and before a graceful release; a crash or a lost lease re-delivers at most this much of the
   * range (delivery is at-least-once anyway). Under load this turns one lease write per batch into
   * one per second; at `leaseRenewIntervalMs` a lease costs one write per renewal interval, busy or
   * idle. @defaultValue 1_000
   */
  checkpointIntervalMs?: number;
  /** Retries of a whole failing batch before it is bisected. @defaultValue `{ retries: 3, initialDelayMs: 100, maxDelayMs: 5_000, multiplier: 2, jitter: 0.2 }` */
  handlerRetry?: BackoffPolicy;
  /** Attempts on one isolated document before it goes to `onPoison`. @defaultValue 3 */
  poisonAttempts?: number;
  /** Backoff for transient engine failures (429, 5xx, timeouts) while keeping the lease. @defaultValue `{ retries: Infinity, initialDelayMs: 100, maxDelayMs: 10_000, multiplier: 2, jitter: 0.2 }` */
  engineRetry?: BackoffPolicy;
  /** Time source for lease expiry, renew timing and the stall watchdog. @defaultValue system clock */
  clock?: Clock;
  /** Random source for lease picks and jitter. @defaultValue Math.random */
  random?: () => number;
  /** @defaultValue silent */
  logger?: ChangeFeedLogger;
  /**
   * Entries this instance writes into a lease's `properties` when it acquires it (e.g. where its ops
   * server answers), asked at each acquisition. @defaultValue none
   */
  leaseProperties?: () => Record<string, string>;
}

export type ResolvedOptions = Required<Omit<ChangeFeedProcessorOptions, 'startFrom'>> & { startFrom: StartFrom };

/** Every option's default, in one place (see the README's table for why these values). */
export const DEFAULTS = Object.freeze({
  startFrom: 'now' as StartFrom,
  maxItemCount: 100,
  leaseAcquireIntervalMs: 5_000,
  otherProcessorsIntervalMs: 60_000,
  leaseRenewIntervalMs: 15_000,
  leaseExpirationMs: 45_000,
  minPollDelayMs: 0,
  maxPollDelayMs: 1_000,
  activeWindowMs: 10_000,
  activePollDelayMs: 100,
  pollDelayRampSteps: 4,
  maxLeasesPerInstance: Infinity,
  leasesAcquiredPerCycle: 8,
  readTimeoutMs: 15_000,
  stallTimeoutMs: 60_000,
  checkpointIntervalMs: 1_000,
  handlerRetry: Object.freeze({ retries: 3, initialDelayMs: 100, maxDelayMs: 5_000, multiplier: 2, jitter: 0.2 }),
  poisonAttempts: 3,
  engineRetry: Object.freeze({ retries: Infinity, initialDelayMs: 100, maxDelayMs: 10_000, multiplier: 2, jitter: 0.2 }),
});

/** The .NET Change Feed Processor's defaults expressed as options (used by the benchmark for comparison). */
export const DOTNET_DEFAULTS = Object.freeze({
  leaseAcquireIntervalMs: 13_000,
  leaseRenewIntervalMs: 17_000,
  leaseExpirationMs: 60_000,
  minPollDelayMs: 0,
  maxPollDelayMs: 5_000,
  activeWindowMs: 0,
  activePollDelayMs: 0,
  pollDelayRampSteps: 0,
  readTimeoutMs: 65_000,
  stallTimeoutMs: 130_000,
  checkpointIntervalMs: 0,
});

/** Characters Cosmos refuses in an item id; processor and instance names end up in lease ids and `Owner`. */
const INVALID_ID_CHARS = /[/\\?#]/;

function defaultInstanceName(random: () => number = Math.random): string {
  return `${hostname()}-${process.pid}-${Math.floor(random() * 0xffffff)
    .toString(16)
    .padStart(6, '0')}`;
}

/** Fills defaults and validates; every error names the option and how to fix it. */
export function resolveOptions(options: ChangeFeedProcessorOptions): ResolvedOptions {
  if (options === null || typeof options !== 'object') {
    throw new ChangeFeedConfigurationError('options must be an object with at least { processorName }');
  }
  const random = options.random ?? Math.random;
  const resolved: ResolvedOptions = {
    processorName: options.processorName,
    instanceName: options.instanceName ?? defaultInstanceName(random),
    startFrom: options.startFrom ?? DEFAULTS.startFrom,
    maxItemCount: options.maxItemCount ?? DEFAULTS.maxItemCount,
    leaseAcquireIntervalMs: options.leaseAcquireIntervalMs ?? DEFAULTS.leaseAcquireIntervalMs,
    otherProcessorsIntervalMs: options.otherProcessorsIntervalMs ?? DEFAULTS.otherProcessorsIntervalMs,
    leaseRenewIntervalMs: options.leaseRenewIntervalMs ?? DEFAULTS.leaseRenewIntervalMs,
    leaseExpirationMs: options.leaseExpirationMs ?? DEFAULTS.leaseExpirationMs,
    minPollDelayMs: options.minPollDelayMs ?? DEFAULTS.minPollDelayMs,
    maxPollDelayMs: options.maxPollDelayMs ?? DEFAULTS.maxPollDelayMs,
    activeWindowMs: options.activeWindowMs ?? DEFAULTS.activeWindowMs,
    activePollDelayMs: options.activePollDelayMs ?? DEFAULTS.activePollDelayMs,
    pollDelayRampSteps: options.pollDelayRampSteps ?? DEFAULTS.pollDelayRampSteps,
    maxLeasesPerInstance: options.maxLeasesPerInstance ?? DEFAULTS.maxLeasesPerInstance,
    leasesAcquiredPerCycle: options.leasesAcquiredPerCycle ?? DEFAULTS.leasesAcquiredPerCycle,
    readTimeoutMs: options.readTimeoutMs ?? DEFAULTS.readTimeoutMs,
    stallTimeoutMs: options.stallTimeoutMs ?? DEFAULTS.stallTimeoutMs,
    checkpointIntervalMs: options.checkpointIntervalMs ?? DEFAULTS.checkpointIntervalMs,
    handlerRetry: { ...DEFAULTS.handlerRetry, ...options.handlerRetry },
    poisonAttempts: options.poisonAttempts ?? DEFAULTS.poisonAttempts,
    engineRetry: { ...DEFAULTS.engineRetry, ...options.engineRetry },
    clock: options.clock ?? systemClock,
    random,
    logger: options.logger ?? silentLogger,
    leaseProperties: options.leaseProperties ?? (() => ({})),
  };
  validate(resolved);
  return resolved;
}

function fail(message: string): never {
  throw new ChangeFeedConfigurationError(message);
}

function name(field: string, value: unknown): void {
  if (typeof value !== 'string' || value.trim() === '') {
    fail(`${field} must be a non-empty string, got ${JSON.stringify(value)}; e.g. ${field}: 'operations-processor'`);
  }
  if (INVALID_ID_CHARS.test(value)) {
    fail(`${field} ${JSON.stringify(value)} contains one of / \\ ? # which Cosmos refuses in lease ids; remove them`);
  }
}

function int(field: string, value: number, min: number, allowInfinity = false): void {
  const ok = (allowInfinity && value === Infinity) || (Number.isInteger(value) && value >= min);
  if (!ok) {
    const extra = allowInfinity ? ' (or Infinity)' : '';
    fail(
      `${field} must be an integer >= ${min}${extra}, got ${String(value)}; it is in ${field.endsWith('Ms') ? 'milliseconds' : 'units'}`,
    );
  }
}

function policy(field: string, p: BackoffPolicy): void {
  if (!(p.retries === Infinity || (Number.isInteger(p.retries) && p.retries >= 0)))
    fail(`${field}.retries must be an integer >= 0 or Infinity, got ${String(p.retries)}`);
  int(`${field}.initialDelayMs`, p.initialDelayMs, 0);
  int(`${field}.maxDelayMs`, p.maxDelayMs, 0);
  if (p.maxDelayMs < p.initialDelayMs)
    fail(
      `${field}.maxDelayMs (${p.maxDelayMs}) must be >= ${field}.initialDelayMs (${p.initialDelayMs}); raise maxDelayMs or lower initialDelayMs`,
    );
  if (!(p.multiplier >= 1)) fail(`${field}.multiplier must be >= 1, got ${String(p.multiplier)}`);
  if (!(p.jitter >= 0 && p.jitter <= 1)) fail(`${field}.jitter must be between 0 and 1, got ${String(p.jitter)}`);
}

function validate(o: ResolvedOptions): void {
  name('processorName', o.processorName);
  name('instanceName', o.instanceName);
  const s = o.startFrom;
  const validStart =
    s === 'beginning' || s === 'now' || (typeof s === 'object' && s !== null && s.time instanceof Date && !Number.isNaN(s.time.getTime()));
  if (!validStart) fail(`startFrom must be 'beginning', 'now' or { time: <valid Date> }, got ${JSON.stringify(s)}`);
  int('maxItemCount', o.maxItemCount, 1);
  int('leaseAcquireIntervalMs', o.leaseAcquireIntervalMs, 1);
  int('otherProcessorsIntervalMs', o.otherProcessorsIntervalMs, 0);
  int('leaseRenewIntervalMs', o.leaseRenewIntervalMs, 1);
  int('leaseExpirationMs', o.leaseExpirationMs, 1);
  if (o.leaseRenewIntervalMs >= o.leaseExpirationMs) {
    fail(
      `leaseRenewIntervalMs (${o.leaseRenewIntervalMs}) must be below leaseExpirationMs (${o.leaseExpirationMs}), ` +
        `or leases expire between renewals; use at most a third of it, e.g. leaseRenewIntervalMs: ${Math.floor(o.leaseExpirationMs / 3)}`,
    );
  }
  int('minPollDelayMs', o.minPollDelayMs, 0);
  int('maxPollDelayMs', o.maxPollDelayMs, 0);
  if (o.minPollDelayMs > o.maxPollDelayMs) {
    fail(
      `minPollDelayMs (${o.minPollDelayMs}) must not exceed maxPollDelayMs (${o.maxPollDelayMs}); raise maxPollDelayMs or lower minPollDelayMs`,
    );
  }
  int('activeWindowMs', o.activeWindowMs, 0);
  int('activePollDelayMs', o.activePollDelayMs, 0);
  int('pollDelayRampSteps', o.pollDelayRampSteps, 0);
  int('maxLeasesPerInstance', o.maxLeasesPerInstance, 1, true);
  int('leasesAcquiredPerCycle', o.leasesAcquiredPerCycle, 1, true);
  int('readTimeoutMs', o.readTimeoutMs, 1);
  int('stallTimeoutMs', o.stallTimeoutMs, 1);
  if (o.stallTimeoutMs <= o.readTimeoutMs) {
    fail(
      `stallTimeoutMs (${o.stallTimeoutMs}) must exceed readTimeoutMs (${o.readTimeoutMs}), or a slow read is taken for a stall; ` +
        `e.g. stallTimeoutMs: ${o.readTimeoutMs * 4}`,
    );
  }
  int('checkpointIntervalMs', o.checkpointIntervalMs, 0);
  policy('handlerRetry', o.handlerRetry);
  int('poisonAttempts', o.poisonAttempts, 1);
  policy('engineRetry', o.engineRetry);
  if (typeof o.clock?.now !== 'function') fail('clock must have a now(): number method');
  if (typeof o.random !== 'function') fail('random must be a function returning a number in [0, 1)');
}
