import { Writable } from 'node:stream';
import { createLogger } from '../../../src/logging/logger';
import { DEPTH_MARKER, MAX_MEMBERS, MAX_STRING, redact } from '../../../src/logging/redact';

function nested(depth: number): unknown {
  let v: unknown = 'x';
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
}

function capture(format: 'json' | 'pretty', level = 'info'): { logger: ReturnType<typeof createLogger>; lines: string[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      lines.push(String(chunk));
      cb();
    },
  });
  return { logger: createLogger({ format, stream, level }), lines };
}

describe('log lines stay bounded whatever a field holds', () => {
  it.each(['json', 'pretty'] as const)('%s: a field nested 3,700 levels deep is logged, cut at the depth limit', (format) => {
    const { logger, lines } = capture(format);
    expect(() =>
      logger.warn('document dead-lettered (validation)', { operationId: 'op-1', resourceId: nested(3_700), leaseToken: '0-1' }),
    ).not.toThrow();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(DEPTH_MARKER);
    expect(lines[0].length).toBeLessThan(500);
  });

  it('a debug line below the level is dropped before any formatting', () => {
    const { logger, lines } = capture('json', 'info');
    const getter = jest.fn(() => 'read');
    const field = Object.defineProperty({}, 'probe', { get: getter, enumerable: true });
    logger.debug('changefeed.poison', { document: field });
    expect(getter).not.toHaveBeenCalled();
    expect(lines).toEqual([]);
    logger.level = 'debug';
    logger.debug('changefeed.poison', { document: field });
    expect(getter).toHaveBeenCalled();
    expect(lines).toHaveLength(1);
  });

  it('long strings and large containers are cut with a marker', () => {
    const out = redact({
      s: 'y'.repeat(2 * 1024 * 1024),
      list: Array.from({ length: 1000 }, (_, i) => i),
      obj: Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`k${i}`, i])),
    }) as {
      s: string;
      list: unknown[];
      obj: Record<string, unknown>;
    };
    expect(out.s.length).toBeLessThan(MAX_STRING + 100);
    expect(out.s.endsWith(`[… ${2 * 1024 * 1024 - MAX_STRING} more characters]`)).toBe(true);
    expect(out.list).toHaveLength(MAX_MEMBERS + 1);
    expect(out.list[MAX_MEMBERS]).toBe(`[… ${1000 - MAX_MEMBERS} more items]`);
    expect(Object.keys(out.obj)).toHaveLength(MAX_MEMBERS + 1);
    expect(out.obj['…']).toBe(`[… ${500 - MAX_MEMBERS} more members]`);
  });

  it('a value that throws when read is logged as unloggable, not thrown', () => {
    const { logger, lines } = capture('json');
    const hostile = Object.defineProperty({}, 'boom', {
      enumerable: true,
      get() {
        throw new Error('no');
      },
    });
    expect(() => logger.error('x', { hostile, operationId: 'op-1' })).not.toThrow();
    expect(JSON.parse(lines[0])).toMatchObject({ hostile: '[unloggable value]', operationId: 'op-1' });
  });

  it('still masks secrets and keeps dates and errors readable', () => {
    expect(redact({ a: { b: { accountKey: 'k' } }, at: new Date(0), err: new Error('Bearer abc') })).toEqual({
      a: { b: { accountKey: '***' } },
      at: new Date(0),
      err: expect.objectContaining({ name: 'Error', message: 'Bearer ***' }),
    });
  });
});
