import { TestScheduler } from 'rxjs/testing';
import { handleBatches, type ChangeFeedBatch } from '../../../src/changefeed/stream';
import type { ChangeFeedContext } from '../../../src/changefeed/handler';

function batch(name: string, log: string[]): ChangeFeedBatch<string> {
  return {
    documents: [name],
    context: { leaseToken: name } as ChangeFeedContext,
    ack: () => log.push(`ack ${name}`),
    nack: (error: unknown) => log.push(`nack ${name}: ${(error as Error).message}`),
  };
}

describe('handleBatches operator', () => {
  let scheduler: TestScheduler;
  beforeEach(() => {
    scheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
  });

  it('acks each batch when its work completes and emits it then; nacks a failed one and emits nothing', () => {
    scheduler.run(({ cold, hot, expectObservable }) => {
      const log: string[] = [];
      const a = batch('a', log);
      const b = batch('b', log);
      const c = batch('c', log);
      const source = hot('-a-b-c-|', { a, b, c });
      const work: Record<string, ReturnType<typeof cold>> = {
        a: cold('--x|'),
        b: cold('-#', undefined, new Error('boom')),
        c: cold('x-y-|'),
      };
      const out = source.pipe(handleBatches((docs) => work[docs[0]]));
      expectObservable(out).toBe('----a----(c|)', { a, c });
      scheduler.flush();
      expect(log).toEqual(['ack a', 'nack b: boom', 'ack c']);
    });
  });

  it('limits batches in flight with concurrency', () => {
    scheduler.run(({ cold, hot, expectObservable }) => {
      const log: string[] = [];
      const a = batch('a', log);
      const b = batch('b', log);
      const source = hot('-ab|', { a, b });
      const out = source.pipe(handleBatches(() => cold('---|'), 1));
      expectObservable(out).toBe('----a--(b|)', { a, b });
    });
  });

  it('acks a batch whose work completes without emitting', () => {
    scheduler.run(({ cold, hot, expectObservable }) => {
      const log: string[] = [];
      const a = batch('a', log);
      expectObservable(hot('a|', { a }).pipe(handleBatches(() => cold('|')))).toBe('a|', { a });
      scheduler.flush();
      expect(log).toEqual(['ack a']);
    });
  });
});
