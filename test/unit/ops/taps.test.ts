import { firstValueFrom, take, toArray } from 'rxjs';
import { waitFor } from '../../helpers/wait-for';
import { TapRegistry, guardUnhandledRxjsErrors } from '../../../src/ops/taps';

describe('TapRegistry', () => {
  it('delivers published events to taps of that stream only, with filters', async () => {
    const taps = new TapRegistry(['operations', 'transitions']);
    const got = firstValueFrom(taps.tap<{ sub: string }>('operations', (e) => e.data.sub === 'b').pipe(take(1), toArray()));
    taps.publish('transitions', { sub: 'b' });
    taps.publish('operations', { sub: 'a' });
    taps.publish('operations', { sub: 'b' });
    const events = await got;
    expect(events.map((e) => [e.stream, e.data.sub])).toEqual([['operations', 'b']]);
    expect(taps.published()).toEqual({ operations: 2, transitions: 1 });
  });

  it('"*" taps every stream', async () => {
    const taps = new TapRegistry(['a', 'b']);
    const got = firstValueFrom(taps.tap('*').pipe(take(2), toArray()));
    taps.publish('a', 1);
    taps.publish('b', 2);
    expect((await got).map((e) => e.stream)).toEqual(['a', 'b']);
  });

  it('a subscriber that throws never breaks the publisher nor the other taps', async () => {
    const reported: unknown[] = [];
    guardUnhandledRxjsErrors((err) => reported.push(err));
    const taps = new TapRegistry(['a']);
    taps.tap('a').subscribe(() => {
      throw new Error('bad subscriber');
    });
    const good = firstValueFrom(taps.tap<number>('a').pipe(take(2), toArray()));
    expect(() => taps.publish('a', 1)).not.toThrow();
    expect(() => taps.publish('a', 2)).not.toThrow();
    expect((await good).map((e) => e.data)).toEqual([1, 2]);
    await waitFor(() => reported.length > 0);
    expect(String(reported[0])).toContain('bad subscriber');
  });

  it('names the known streams when asked for an unknown one', () => {
    const taps = new TapRegistry(['operations']);
    expect(() => taps.tap('nope')).toThrow('unknown stream "nope" (known: operations)');
  });
});
