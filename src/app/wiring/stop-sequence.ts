import type { Subscription } from 'rxjs';
import type { Logger } from '../../logging/logger';
import type { OperationPipeline } from '../../pipeline/operation-pipeline';

interface Closable {
  close(): Promise<unknown>;
}

/** What a running instance holds, in the order a stop undoes it. */
export interface RunningParts {
  logger: Logger;
  drainTimeoutMs: number;
  pipeline: OperationPipeline;
  operationEvents?: { stop(): Promise<unknown> };
  otherFleets: { stop(): void };
  deadLetters: { stopLateWrites(): void };
  observing: Subscription;
  events: { close(): void };
  live: { close(): void };
  /** The servers and receivers, closed together once no handling runs. */
  closables: ReadonlyArray<Closable | undefined>;
  client: { dispose(): void };
  tracing?: { stop(): Promise<unknown> };
}

/**
 * The stop: no new handling, handlings in flight finish or are abandoned after the drain, leases
 * released (the pipeline's and the event publisher's together), then watchers, streams, servers,
 * clients and tracing. Readiness turned unready before this began.
 */
export async function stopInOrder(p: RunningParts): Promise<void> {
  const started = Date.now();
  p.logger.info('opstream stopping: unready, no new handling', { drainTimeoutMs: p.drainTimeoutMs });
  const [{ abandoned }] = await Promise.all([p.pipeline.stop({ drainMs: p.drainTimeoutMs }), p.operationEvents?.stop()]);
  p.logger.info('leases released', { abandoned, elapsedMs: Date.now() - started });
  p.otherFleets.stop();
  p.deadLetters.stopLateWrites();
  p.observing.unsubscribe();
  p.events.close();
  p.live.close();
  await Promise.all(p.closables.map((c) => c?.close()));
  p.client.dispose();
  await p.tracing?.stop();
  p.logger.info('opstream stopped', { elapsedMs: Date.now() - started });
}
