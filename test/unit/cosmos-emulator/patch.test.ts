import { applyPatch, checkCondition, parsePatchSpec } from '@opstream/cosmos-emulator/patch';
import { queryMatches } from '@opstream/cosmos-emulator/query';
import { JsonObject } from '@opstream/cosmos-emulator/types';

const doc = (): JsonObject => ({ id: 'x', pk: 'p', n: 1, arr: [1, 2, 3], obj: { a: 1 }, _etag: '"e"' });
const patch = (d: JsonObject, ops: unknown[]): JsonObject => applyPatch(d, parsePatchSpec(ops), ['/pk']);

describe('patch', () => {
  it('adds, sets and replaces on objects and arrays', () => {
    expect(patch(doc(), [{ op: 'add', path: '/obj/b', value: 2 }]).obj).toEqual({ a: 1, b: 2 });
    expect(patch(doc(), [{ op: 'add', path: '/arr/0', value: 0 }]).arr).toEqual([0, 1, 2, 3]);
    expect(patch(doc(), [{ op: 'add', path: '/arr/-', value: 4 }]).arr).toEqual([1, 2, 3, 4]);
    expect(patch(doc(), [{ op: 'set', path: '/arr/1', value: 9 }]).arr).toEqual([1, 9, 3]);
    expect(patch(doc(), [{ op: 'set', path: '/new', value: { z: true } }]).new).toEqual({ z: true });
    expect(patch(doc(), [{ op: 'replace', path: '/n', value: 'one' }]).n).toBe('one');
  });

  it('removes, increments and moves', () => {
    const out = patch(doc(), [
      { op: 'remove', path: '/arr/0' },
      { op: 'incr', path: '/n', value: 2.5 },
      { op: 'incr', path: '/fresh', value: 3 },
      { op: 'move', from: '/obj/a', path: '/moved' },
    ]);
    expect(out).toMatchObject({ arr: [2, 3], n: 3.5, fresh: 3, obj: {}, moved: 1 });
  });

  it('leaves the input untouched', () => {
    const d = doc();
    patch(d, [{ op: 'set', path: '/obj/a', value: 5 }]);
    expect(d).toEqual(doc());
  });

  it('refuses bad operations with 400', () => {
    const bad: unknown[][] = [
      [{ op: 'replace', path: '/missing', value: 1 }],
      [{ op: 'remove', path: '/missing' }],
      [{ op: 'set', path: '/no/such/parent', value: 1 }],
      [{ op: 'incr', path: '/obj', value: 1 }],
      [{ op: 'set', path: '/id', value: 'y' }],
      [{ op: 'set', path: '/pk', value: 'q' }],
      [{ op: 'set', path: '/_etag', value: 'q' }],
      [{ op: 'move', from: '/obj', path: '/obj/inner' }],
      [{ op: 'set', path: '/arr/7', value: 1 }],
    ];
    for (const ops of bad) expect(() => patch(doc(), ops)).toThrow(expect.objectContaining({ status: 400 }));
    expect(() => parsePatchSpec([])).toThrow(expect.objectContaining({ status: 400 }));
    expect(() => parsePatchSpec([{ op: 'explode', path: '/a' }])).toThrow(expect.objectContaining({ status: 400 }));
    expect(() => parsePatchSpec(Array.from({ length: 11 }, () => ({ op: 'remove', path: '/a' })))).toThrow(
      expect.objectContaining({ status: 400 }),
    );
  });

  it('cannot reach Object.prototype through __proto__, constructor or prototype', () => {
    for (const path of ['/__proto__/polluted', '/constructor/prototype/polluted', '/obj/__proto__']) {
      expect(() => patch(doc(), [{ op: 'set', path, value: 1 }])).toThrow(expect.objectContaining({ status: 400 }));
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(() => patch(doc(), [{ op: 'remove', path: '/toString' }])).toThrow(expect.objectContaining({ status: 400 }));
  });

  it('evaluates conditions with the SQL engine (412 when false)', () => {
    expect(() => checkCondition(doc(), 'FROM c WHERE c.n = 1', queryMatches)).not.toThrow();
    expect(() => checkCondition(doc(), 'FROM c WHERE c.n = 2', queryMatches)).toThrow(expect.objectContaining({ status: 412 }));
    expect(() => checkCondition(doc(), 'FROM WHERE', queryMatches)).toThrow(expect.objectContaining({ status: 400 }));
  });
});
