import { afterThrow, NO_FAILURES, type RetryPolicy } from '../../../../src/pipeline/queue/retry-policy';
import { settle, type Handled } from '../../../../src/pipeline/queue/settle';
import { again, done } from '../../../../src/pipeline/queue/outcome';

const POLICY: RetryPolicy = {
  maxAttempts: 3,
  backoff: { retries: Infinity, initialDelayMs: 100, maxDelayMs: 400, multiplier: 2, jitter: 0 },
};
const boom = new Error('boom');

describe('settle: one switch from a handling’s ending to the queue’s action', () => {
  it.each<[string, Handled, { action: unknown; result: string; outcome: unknown }]>([
    [
      'done forgets the item',
      { outcome: done('ok') },
      { action: { kind: 'forget' }, result: 'done', outcome: { kind: 'done', note: 'ok' } },
    ],
    [
      'again parks it for its delay',
      { outcome: again(2500, 'installing') },
      { action: { kind: 'requeue', afterMs: 2500 }, result: 'requeued', outcome: { kind: 'again', afterMs: 2500 } },
    ],
    [
      'a negative delay is due now',
      { outcome: again(-5) },
      { action: { kind: 'requeue', afterMs: 0 }, result: 'requeued', outcome: { kind: 'again' } },
    ],
    [
      'a failed outcome forgets it',
      { outcome: { kind: 'failed', error: boom } },
      { action: { kind: 'forget' }, result: 'failed', outcome: { kind: 'failed', error: boom } },
    ],
    [
      'a counted throw is retried after the first delay',
      { thrown: boom, kind: 'counted' },
      { action: { kind: 'requeue', afterMs: 100 }, result: 'retried', outcome: { kind: 'again', note: 'retry after error: boom' } },
    ],
    [
      'a terminal throw fails at once',
      { thrown: boom, kind: 'terminal' },
      { action: { kind: 'forget' }, result: 'failed', outcome: { kind: 'failed', error: boom } },
    ],
    [
      'an abandoned handling is forgotten, not failed',
      { abandoned: true },
      { action: { kind: 'forget' }, result: 'abandoned', outcome: { kind: 'done', note: 'abandoned at stop' } },
    ],
  ])('%s', (_name, handled, expected) => {
    expect(settle(handled, NO_FAILURES, POLICY)).toMatchObject(expected);
  });

  it('a handling that did not throw clears the failure history', () => {
    expect(settle({ outcome: again(10) }, { attempts: 2, throws: 5 }, POLICY).failures).toEqual(NO_FAILURES);
  });

  it.each([NaN, Infinity])('again after %s ms is a defect of the handling: failed, never a timer', (afterMs) => {
    const s = settle({ outcome: again(afterMs, 'from a document time') }, NO_FAILURES, POLICY);
    expect(s).toMatchObject({ action: { kind: 'forget' }, result: 'failed', outcome: { kind: 'failed' } });
    expect(s.outcome.kind === 'failed' && s.outcome.error.message).toMatch(/non-finite|NaN|Infinity/);
  });

  it('a thrown non-Error becomes an Error naming it', () => {
    const s = settle({ thrown: 'text', kind: 'terminal' }, NO_FAILURES, POLICY);
    expect(s.outcome).toEqual({ kind: 'failed', error: new Error('text') });
  });
});

describe('afterThrow: retry policy as data', () => {
  it('a wait the dependency asked for parks the item at least that long, at most an hour', () => {
    expect(afterThrow(POLICY, NO_FAILURES, 'retriable', () => 0, 5_000)).toMatchObject({ retry: true, afterMs: 5_000 });
    expect(afterThrow(POLICY, NO_FAILURES, 'retriable', () => 0, 50)).toMatchObject({ retry: true, afterMs: 100 });
    expect(afterThrow(POLICY, NO_FAILURES, 'retriable', () => 0, 86_400_000)).toMatchObject({ retry: true, afterMs: 3_600_000 });
    expect(afterThrow(POLICY, NO_FAILURES, 'retriable', () => 0, NaN)).toMatchObject({ retry: true, afterMs: 100 });
  });

  it('counted throws fail the item on the maxAttempts-th in a row, with growing delays before', () => {
    let count = NO_FAILURES;
    const delays: number[] = [];
    for (;;) {
      const d = afterThrow(POLICY, count, 'counted');
      count = d.count;
      if (!d.retry) break;
      delays.push(d.afterMs);
    }
    expect(delays).toEqual([100, 200]);
    expect(count).toEqual({ attempts: 3, throws: 3 });
  });

  it('retriable throws never fail the item, and their delay stops at the ceiling', () => {
    let count = NO_FAILURES;
    const delays: number[] = [];
    for (let i = 0; i < 6; i++) {
      const d = afterThrow(POLICY, count, 'retriable');
      if (!d.retry) throw new Error('a retriable throw failed the item');
      delays.push(d.afterMs);
      count = d.count;
    }
    expect(delays).toEqual([100, 200, 400, 400, 400, 400]);
    expect(count.attempts).toBe(0);
  });

  it('an outage before a defect paces the defect’s retries from where the outage left them', () => {
    const afterOutage = { attempts: 0, throws: 3 };
    expect(afterThrow(POLICY, afterOutage, 'counted')).toEqual({ retry: true, afterMs: 400, count: { attempts: 1, throws: 4 } });
  });

  it('jitter takes a random share off the delay', () => {
    const jittered = { ...POLICY, backoff: { ...POLICY.backoff, jitter: 0.5 } };
    expect(afterThrow(jittered, NO_FAILURES, 'counted', () => 1)).toMatchObject({ afterMs: 50 });
  });
});
