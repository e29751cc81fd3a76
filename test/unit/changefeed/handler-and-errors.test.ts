import { of, throwError, timer, map } from 'rxjs';
import { raceAbort, settle, withTimeout } from '../../../src/changefeed/handler';
import { renewDelayMs } from '../../../src/changefeed/renewer';
import {
  ChangeFeedEngineError,
  HandlerError,
  LeaseLostError,
  ReadTimeoutError,
  engineError,
  isLeaseLost,
  isTransient,
  retryAfterMsOf,
} from '../../../src/changefeed/errors';
import { ManualClock } from '../../../src/changefeed/util/clock';

describe('handler results', () => {
  it('settles a promise, an Observable (on completion) or nothing', async () => {
    await expect(settle(Promise.resolve(1))).resolves.toBeUndefined();
    await expect(settle(undefined)).resolves.toBeUndefined();
    await expect(settle(timer(5).pipe(map(() => 1)))).resolves.toBeUndefined();
    await expect(settle(of())).resolves.toBeUndefined();
    await expect(settle(throwError(() => new Error('obs failed')))).rejects.toThrow('obs failed');
    await expect(settle(Promise.reject(new Error('promise failed')))).rejects.toThrow('promise failed');
  });

  it('stops waiting for a hung handler as soon as the lease is aborted', async () => {
    const controller = new AbortController();
    const hung = new Promise<void>(() => undefined);
    const waiting = raceAbort(hung, controller.signal);
    controller.abort(new LeaseLostError('10-20', { newOwner: 'b' }));
    await expect(waiting).rejects.toBeInstanceOf(LeaseLostError);
  });

  it('times out a read that does not answer', async () => {
    const never = new Promise<void>(() => undefined);
    await expect(withTimeout(never, 10, () => new ReadTimeoutError(10, { leaseToken: '-FF' }))).rejects.toBeInstanceOf(ReadTimeoutError);
    await expect(withTimeout(Promise.resolve(7), 1000, () => new Error('x'))).resolves.toBe(7);
  });
});

describe('renew timing', () => {
  it('renews only a lease not written for a whole renew interval (checkpoints count as writes)', () => {
    const clock = new ManualClock(100_000);
    expect(renewDelayMs(clock.now(), clock.now(), 10_000)).toBe(10_000);
    clock.advance(4_000);
    expect(renewDelayMs(100_000, clock.now(), 10_000)).toBe(6_000);
    clock.advance(7_000);
    expect(renewDelayMs(100_000, clock.now(), 10_000)).toBe(0);
  });
});

describe('errors', () => {
  it.each([
    [{ code: 429, retryAfterInMs: 30 }, true],
    [{ code: 503 }, true],
    [{ code: 500 }, true],
    [{ code: 408 }, true],
    [{ code: 410, substatus: 1002 }, true],
    [{ code: 404 }, false],
    [{ code: 412 }, false],
    [{ code: 400 }, false],
    [{ code: 'ECONNRESET' }, true],
    [new Error('plain'), false],
  ])('classifies %j as transient: %s', (err, expected) => {
    expect(isTransient(err)).toBe(expected);
  });

  it('keeps handler failures apart from engine failures', () => {
    const handler = new HandlerError(new Error('bad doc'), { leaseToken: '-10', documentCount: 3 });
    expect(isTransient(handler)).toBe(false);
    expect(handler.message).toBe('handler failed on 3 document(s): bad doc');
    const engine = engineError('change feed read', { code: 503, message: 'busy' }, { leaseToken: '-10' });
    expect(engine).toBeInstanceOf(ChangeFeedEngineError);
    expect(engine).toMatchObject({ retriable: true, statusCode: 503, leaseToken: '-10' });
    expect(engine.cause).toEqual({ code: 503, message: 'busy' });
  });

  it('carries context on lease loss and honours Retry-After', () => {
    const lost = new LeaseLostError('10-20', { newOwner: 'host-b', instanceName: 'host-a' });
    expect(isLeaseLost(lost)).toBe(true);
    expect(lost).toMatchObject({ retriable: false, leaseToken: '10-20', newOwner: 'host-b', gone: false });
    expect(lost.message).toBe('lease 10-20 is now owned by "host-b"');
    expect(retryAfterMsOf({ code: 429, retryAfterInMs: 250 })).toBe(250);
  });
});
