import type { OpstreamConfig } from '../../config/config-types';
import type { OpstreamContainers } from '../../cosmos';
import type { Logger } from '../../logging/logger';
import { cachedFor } from '../../ops/cached-for';
import { livePage } from '../../ops/live-page';
import type { OpstreamMetrics } from '../../ops/metrics';
import { startOpsServer, type OpsServer, type OpsServerOptions, type ReadinessReport } from '../../ops/ops-server';
import type { TapRegistry } from '../../ops/taps';
import type { OperationPipeline } from '../../pipeline/operation-pipeline';
import type { advertisedOps } from '../advertised-ops';
import type { PermissionWatch } from '../permission-watch';
import { checkReadiness } from '../readiness';

/** How long one readiness answer serves /readyz. */
const READINESS_CACHE_MS = 1000;
/** How old the lease count /readyz reports may be: a listing a minute at most, not one per probe. */
const LEASE_COUNT_CACHE_MS = 60_000;

const STOPPING: ReadinessReport = {
  ready: false,
  checks: { shutdown: { ok: false, detail: 'stopping: finishing handlings in flight, then releasing leases' } },
};

export interface OpsServersDeps {
  taps: TapRegistry;
  metrics: OpstreamMetrics;
  logger: Logger;
  containers: OpstreamContainers;
  pipeline: OperationPipeline;
  permissions: PermissionWatch;
  summary: () => Promise<Record<string, unknown>>;
  /** Refreshes the lease gauges before a scrape. */
  leaseState: () => Promise<unknown>;
  advertised: ReturnType<typeof advertisedOps>;
  /** True from the first instant of a stop. */
  stopping: () => boolean;
  sse?: OpsServerOptions['sse'];
}

export interface OpsServers {
  ops: OpsServer;
  /** The probes-and-metrics listener (`ops.metricsAddr`), when configured. */
  probes?: OpsServer;
  close(): Promise<void>;
}

/** The ops server (`ops.addr`: taps, summary, live page, explain's answers) and the probes listener (`ops.metricsAddr`). */
export async function startOpsServers(config: OpstreamConfig, deps: OpsServersDeps): Promise<OpsServers> {
  const { logger, pipeline } = deps;
  // /readyz answers anyone who asks: one Cosmos read a second at most, however often that is; the
  // lease count it reports is listed once a minute at most.
  const leaseCount = cachedFor(
    LEASE_COUNT_CACHE_MS,
    async () => (await pipeline.processor.getCurrentState({ estimateLag: false })).leases.length,
  );
  const checked = cachedFor(READINESS_CACHE_MS, () =>
    checkReadiness({
      database: deps.containers.database,
      processor: pipeline.processor,
      stallMs: 60_000,
      permissions: () => deps.permissions.readiness(),
      leaseCount,
    }),
  );
  // Unready from the first instant of a stop: the pod leaves its Service before anything else happens.
  const readiness = (): Promise<ReadinessReport> => (deps.stopping() ? Promise.resolve(STOPPING) : checked());
  const shared = { taps: deps.taps, metrics: deps.metrics, readiness, beforeMetrics: async () => void (await deps.leaseState()), logger };
  const [host, port] = splitAddr(config.ops.addr);
  const ops = await startOpsServer({
    ...shared,
    host,
    port,
    token: config.ops.token,
    summary: deps.summary,
    operation: (id) => pipeline.describe(id),
    nudge: (id) => pipeline.nudge(id),
    page: livePage,
    sse: deps.sse,
    maxStreamClients: config.ops.maxStreamClients,
  });
  logger.info(`ops server on ${ops.url}`, { opsUrl: ops.url, advertisedUrl: deps.advertised.listening(ops.url) });
  let probes: OpsServer | undefined;
  if (config.ops.metricsAddr) {
    const [metricsHost, metricsPort] = splitAddr(config.ops.metricsAddr);
    probes = await startOpsServer({ ...shared, host: metricsHost, port: metricsPort, only: 'probes' });
    logger.info(`probes and metrics on ${probes.url}`, { metricsUrl: probes.url });
  }
  return { ops, probes, close: async () => void (await Promise.all([ops.close(), probes?.close()])) };
}

function splitAddr(addr: string): [string, number] {
  const i = addr.lastIndexOf(':');
  return [addr.slice(0, i).replace(/^\[|\]$/g, ''), Number(addr.slice(i + 1))];
}
