import { DEFAULTS as CHANGE_FEED_DEFAULTS } from '../../../src/changefeed/options';
import { CLUSTERS_SERVICE_DEFAULTS } from '../../../src/clusters-service';
import { loadConfig } from '../../../src/config/load-config';
import { SUBSCRIPTION_LOCK_DEFAULTS } from '../../../src/locks';
import { OPERATION_HINTS_DEFAULTS } from '../../../src/service-bus/operation-hints-receiver';
import { PIPELINE_DEFAULTS } from '../../../src/pipeline/operation-pipeline';
import { OPS_SERVER_DEFAULTS } from '../../../src/ops/ops-server';

/**
 * Each component has one DEFAULTS; the configuration schema's defaults (what `run` uses when a
 * setting is unset, and what the table of docs/configuration.md shows) must say the same, or one of them lies.
 */
describe('configuration defaults agree with the components they configure', () => {
  const c = loadConfig({ env: {} });

  it('processor.* = the change feed processor', () => {
    const {
      maxItemCount,
      leaseAcquireIntervalMs,
      leaseRenewIntervalMs,
      leaseExpirationMs,
      maxPollDelayMs,
      activeWindowMs,
      activePollDelayMs,
    } = c.changefeed;
    expect({
      maxItemCount,
      leaseAcquireIntervalMs,
      leaseRenewIntervalMs,
      leaseExpirationMs,
      maxPollDelayMs,
      activeWindowMs,
      activePollDelayMs,
    }).toEqual({
      maxItemCount: CHANGE_FEED_DEFAULTS.maxItemCount,
      leaseAcquireIntervalMs: CHANGE_FEED_DEFAULTS.leaseAcquireIntervalMs,
      leaseRenewIntervalMs: CHANGE_FEED_DEFAULTS.leaseRenewIntervalMs,
      leaseExpirationMs: CHANGE_FEED_DEFAULTS.leaseExpirationMs,
      maxPollDelayMs: CHANGE_FEED_DEFAULTS.maxPollDelayMs,
      activeWindowMs: CHANGE_FEED_DEFAULTS.activeWindowMs,
      activePollDelayMs: CHANGE_FEED_DEFAULTS.activePollDelayMs,
    });
    expect(c.changefeed.maxLeasesPerInstance).toBeUndefined(); // no limit, as CHANGE_FEED_DEFAULTS (Infinity)
    expect(CHANGE_FEED_DEFAULTS.maxLeasesPerInstance).toBe(Infinity);
  });

  it('pipeline.* = the pipeline', () => {
    const { concurrency, relistIntervalMs, maxHandlerAttempts, startedFirst, maxScheduled } = c.pipeline;
    expect({ concurrency, relistIntervalMs, maxHandlerAttempts, startedFirst, maxScheduled }).toEqual({
      concurrency: PIPELINE_DEFAULTS.concurrency,
      relistIntervalMs: PIPELINE_DEFAULTS.relistIntervalMs,
      maxScheduled: PIPELINE_DEFAULTS.maxScheduled,
      maxHandlerAttempts: PIPELINE_DEFAULTS.maxHandlerAttempts,
      startedFirst: PIPELINE_DEFAULTS.startedFirst,
    });
  });

  it('locks.* = the subscription locks', () => {
    expect(c.locks).toEqual({
      ttlMs: SUBSCRIPTION_LOCK_DEFAULTS.ttlSeconds * 1000,
      acquireRetryBaseMs: SUBSCRIPTION_LOCK_DEFAULTS.acquireRetryBaseMs,
      acquireRetryMaxMs: SUBSCRIPTION_LOCK_DEFAULTS.acquireRetryMaxMs,
    });
  });

  it('serviceBus.hints* = the operation hints receiver', () => {
    expect(c.serviceBus.hints).toBe(false);
    expect({ entity: c.serviceBus.hintsEntity, maxPollDelayMs: c.serviceBus.hintsMaxPollDelayMs }).toEqual({ ...OPERATION_HINTS_DEFAULTS });
    expect(c.serviceBus.hintsSubscription).toBeUndefined(); // a queue unless a topic subscription is named
  });

  it('clustersService.timeoutMs = the Clusters Service client', () => {
    expect(c.clustersService.timeoutMs).toBe(CLUSTERS_SERVICE_DEFAULTS.requestTimeoutMs);
  });

  it('ops.maxStreamClients = the ops server', () => {
    expect(c.ops.maxStreamClients).toBe(OPS_SERVER_DEFAULTS.maxStreamClients);
  });
});
