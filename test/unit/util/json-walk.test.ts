import { jsonByteLength, stringifyJson, tooDeepAt } from '../../../src/util/json-walk';

/** `{a: {a: … 'x'}}`, `depth` objects deep (built iteratively). */
export function nested(depth: number, leaf: unknown = 'x', key = 'a'): unknown {
  let v = leaf;
  for (let i = 0; i < depth; i++) v = { [key]: v };
  return v;
}

describe('stringifyJson', () => {
  it.each([
    ['scalars', [1, 'two', true, null, -0, 1e21]],
    ['nested', { b: [1, { d: [], c: {} }], a: 'é€😀', e: '\u2028"\\\n' }],
    [
      'left out like JSON.stringify',
      { u: undefined, f: () => 1, s: Symbol('s'), arr: [undefined, () => 1, NaN, Infinity], d: new Date(0) },
    ],
    ['boxed primitives', { n: Object(1) as unknown, s: Object('s') as unknown, b: Object(false) as unknown }],
    ['a string', 'plain'],
    ['an empty object', {}],
  ])('%s: same text as JSON.stringify', (_name, value) => {
    expect(stringifyJson(value)).toBe(JSON.stringify(value));
  });

  it('undefined where JSON.stringify gives undefined', () => {
    expect(stringifyJson(undefined)).toBeUndefined();
    expect(stringifyJson(() => 1)).toBeUndefined();
  });

  it('sorts keys at every level for a canonical form', () => {
    expect(stringifyJson({ b: 1, a: { d: 1, c: [{ f: 1, e: 2 }] } }, { sortKeys: true })).toBe('{"a":{"c":[{"e":2,"f":1}],"d":1},"b":1}');
  });

  it('writes any depth without overflowing the stack (JSON.stringify throws)', () => {
    const deep = nested(100_000);
    expect(() => JSON.stringify(deep)).toThrow(RangeError);
    const text = stringifyJson(deep) as string;
    expect(text.startsWith('{"a":{"a":')).toBe(true);
    expect(text.length).toBe(100_000 * 6 + 3);
    expect(jsonByteLength(deep)).toBe(text.length);
  });

  it('replaces containers beyond maxDepth with a marker, and cycles with "[circular]"', () => {
    expect(stringifyJson(nested(5, 1), { maxDepth: 2 })).toBe('{"a":{"a":"[nested deeper than 2 levels]"}}');
    expect(stringifyJson([[[]]], { maxDepth: 2, depthMarker: '…' })).toBe('[["…"]]');
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    expect(stringifyJson(cyclic)).toBe('{"a":1,"self":"[circular]"}');
  });

  it('counts UTF-8 bytes', () => {
    expect(jsonByteLength({ s: 'é€😀' })).toBe(Buffer.byteLength(JSON.stringify({ s: 'é€😀' })));
    expect(jsonByteLength(undefined)).toBe(0);
  });
});

describe('tooDeepAt', () => {
  it('names the top-level member that nests too deep (the root is level 1)', () => {
    expect(tooDeepAt({ ok: nested(2), bad: nested(3) }, 3)).toBe('/bad');
    expect(tooDeepAt({ ok: nested(2) }, 3)).toBeUndefined();
    expect(tooDeepAt([[], [[[1]]]], 3)).toBe('/1');
    expect(tooDeepAt({ 'a/b~': nested(10) }, 3)).toBe('/a~1b~0');
    expect(tooDeepAt('scalar', 0)).toBeUndefined();
  });

  it('walks any depth, and stops on a cycle', () => {
    expect(tooDeepAt({ externalId: nested(1_000_000) }, 128)).toBe('/externalId');
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(tooDeepAt(cyclic, 128)).toBe('/self');
  });
});
