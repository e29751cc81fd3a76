import type { ObservableInput, OperatorFunction } from 'rxjs';
import { EMPTY, Observable, Subject, catchError, defer, from, last, map, mergeMap } from 'rxjs';
import type { ChangeFeedContext, ChangeFeedHandler } from './handler';
import type { ChangeFeedProcessor, ChangeFeedProcessorDeps } from './processor';
import { createChangeFeedProcessor } from './processor';
import type { ChangeFeedProcessorOptions } from './options';

/**
 * One batch of the stream face. Its lease waits (no further reads, no checkpoint) until the
 * subscriber calls `ack()`; `nack(error)` counts as a failed handler attempt (retried, then the
 * batch is bisected and re-emitted in smaller batches, and a lone failing document goes to
 * `onPoison`). Batches of different leases are in flight at once; one lease has at most one.
 */
export interface ChangeFeedBatch<T> {
  readonly documents: readonly T[];
  readonly context: ChangeFeedContext;
  ack(): void;
  nack(error: unknown): void;
}

export interface ChangeFeedStream<T> {
  /** Cold: subscribing starts the processor, unsubscribing stops it (releasing its leases). */
  readonly batches$: Observable<ChangeFeedBatch<T>>;
  /** The processor behind the stream, for `events$` and `getCurrentState()`. */
  readonly processor: ChangeFeedProcessor;
}

/**
 * The processor as an RxJS source, so the pipeline above it is built from operators:
 *
 * @example
 * const { batches$ } = createChangeFeedStream<Operation>({ feedContainer, leaseContainer }, { processorName: 'ops' });
 * batches$.pipe(handleBatches((docs, ctx) => from(docs).pipe(concatMap(reconcile)))).subscribe();
 */
export function createChangeFeedStream<T>(
  deps: Omit<ChangeFeedProcessorDeps<T>, 'handler'>,
  options: ChangeFeedProcessorOptions,
): ChangeFeedStream<T> {
  const subject = new Subject<ChangeFeedBatch<T>>();
  const handler: ChangeFeedHandler<T> = (documents, context) =>
    new Promise<void>((resolve, reject) => {
      let settled = false;
      const once =
        <A extends unknown[]>(fn: (...args: A) => void) =>
        (...args: A): void => {
          if (settled) return;
          settled = true;
          fn(...args);
        };
      subject.next({ documents, context, ack: once(() => resolve()), nack: once((error: unknown) => reject(error)) });
    });
  const processor = createChangeFeedProcessor<T>({ ...deps, handler }, options);
  const batches$ = new Observable<ChangeFeedBatch<T>>((subscriber) => {
    const subscription = subject.subscribe(subscriber);
    processor.start().catch((err: unknown) => subscriber.error(err));
    return () => {
      subscription.unsubscribe();
      void processor.stop();
    };
  });
  return { batches$, processor };
}

/**
 * Runs `project` for each batch and acknowledges the batch when the returned input completes
 * (nacks it when it errors); emits each batch once acknowledged. `mergeMap` with `concurrency`
 * across leases; within a lease batches are sequential anyway.
 *
 * @see createChangeFeedStream
 */
export function handleBatches<T>(
  project: (documents: readonly T[], context: ChangeFeedContext) => ObservableInput<unknown>,
  concurrency = Infinity,
): OperatorFunction<ChangeFeedBatch<T>, ChangeFeedBatch<T>> {
  return mergeMap(
    (batch) =>
      defer(() => from(project(batch.documents, batch.context))).pipe(
        last(undefined, undefined),
        map(() => {
          batch.ack();
          return batch;
        }),
        catchError((error: unknown) => {
          batch.nack(error);
          return EMPTY;
        }),
      ),
    concurrency,
  );
}
