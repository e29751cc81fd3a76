/**
 * The hostile-documents scenario's settings, quick (CI) and full (recorded): after a short warm-up,
 * two rounds of the same normal workload on the same three instances, the first clean, the second
 * with the hostile documents written among it, so the normal workload's reaction is compared side by side.
 */
import { FULL, QUICK, type ChaosProfile } from '../profile';

export interface HostileProfile extends ChaosProfile {
  /** How long each round issues the normal workload. */
  readonly roundMs: number;
  /** A round before them, not measured (cold caches and connections). */
  readonly warmUpMs: number;
  /** Normal operations per second (lifecycle steps through the frontend). */
  readonly ratePerSecond: number;
  /** Hostile documents written in the hostile round, spread over its first `hostileSpreadShare`. */
  readonly hostile: number;
  readonly hostileSpreadShare: number;
  /** notifications.deadlineMs of the instances: a notification retried this long is given up. */
  readonly notificationDeadlineMs: number;
  /** How long the instances' idle CPU is measured, before the rounds and after the drain. */
  readonly idleWindowMs: number;
}

export const HOSTILE_QUICK: HostileProfile = {
  ...QUICK,
  subscriptions: 4,
  concurrency: 16,
  roundMs: 30_000,
  warmUpMs: 5_000,
  ratePerSecond: 5,
  hostile: 72,
  hostileSpreadShare: 0.6,
  notificationDeadlineMs: 15_000,
  drainTimeoutMs: 60_000,
  idleWindowMs: 8_000,
};

export const HOSTILE_FULL: HostileProfile = {
  ...FULL,
  subscriptions: 8,
  concurrency: 32,
  roundMs: 90_000,
  warmUpMs: 15_000,
  ratePerSecond: 8,
  hostile: 480,
  hostileSpreadShare: 0.6,
  notificationDeadlineMs: 30_000,
  drainTimeoutMs: 120_000,
  idleWindowMs: 15_000,
};
