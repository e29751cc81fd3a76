import type { ChangeFeedProcessorOptions } from '@opstream/changefeed';
import type { OpstreamConfig } from '../../config/config-types';
import type { OpstreamContainers } from '../../cosmos';
import type { Logger } from '../../logging/logger';
import type { PipelineServices } from '../../pipeline/context';
import { OperationPipeline } from '../../pipeline/operation-pipeline';
import type { OperationProcessor } from '../../pipeline/reconcile/processor';
import { classifyFailure } from '../handling-failures';
import { hintsOn } from '../operation-hints';

export interface PipelineWiring {
  ctx: PipelineServices;
  registry: readonly OperationProcessor[];
  containers: OpstreamContainers;
  instanceName: string;
  logger: Logger;
  /** Where its ops server answers, written into each lease this instance acquires. */
  advertised: { leaseProperties: ChangeFeedProcessorOptions['leaseProperties'] };
}

/** The operation pipeline on the Operations container's change feed, not started. */
export function wirePipeline(config: OpstreamConfig, w: PipelineWiring): OperationPipeline {
  return new OperationPipeline(
    {
      ctx: w.ctx,
      registry: w.registry,
      classify: classifyFailure,
      operationsContainer: w.containers.operations,
      leasesContainer: w.containers.leases,
      changefeed: { ...changefeedOptions(config, w.instanceName, w.logger), leaseProperties: w.advertised.leaseProperties },
    },
    {
      concurrency: config.pipeline.concurrency,
      relistIntervalMs: config.pipeline.relistIntervalMs,
      maxHandlerAttempts: config.pipeline.maxHandlerAttempts,
      startedFirst: config.pipeline.startedFirst,
      maxScheduled: config.pipeline.maxScheduled,
    },
  );
}

/** The change feed processor's options from the `changefeed.*` settings (the pipeline's and the event publisher's). */
export function changefeedOptions(config: OpstreamConfig, instanceName: string, logger: Logger): ChangeFeedProcessorOptions {
  const { name, startFrom, instanceName: _configured, ...rest } = config.changefeed;
  return {
    ...rest,
    // With hints, a write is announced: idle ranges may be polled rarely (a lost hint costs one such
    // pause), and a range that just changed needs no fast polls either: the next write brings its own hint.
    ...(hintsOn(config) ? { maxPollDelayMs: config.serviceBus.hintsMaxPollDelayMs, activeWindowMs: 0 } : {}),
    processorName: name,
    instanceName,
    logger,
    ...(startFrom === undefined
      ? {}
      : { startFrom: startFrom === 'beginning' || startFrom === 'now' ? startFrom : { time: new Date(startFrom) } }),
  };
}
