import { COPY_LIMITS, copyWithinLimits, identifiersOnly, TRUNCATED_KEY } from '../../../src/cosmos/dead-letter-copy';
import { jsonByteLength, stringifyJson, tooDeepAt } from '../../../src/util/json-walk';

const MiB = 1024 * 1024;
const ids = { id: 'op-1', partitionKey: 'sub-1', _etag: '"e-1"', _lsn: 42, _ts: 1710000000, _rid: 'rid==', _self: 'dbs/x/colls/y/docs/z/' };

function nested(depth: number, leaf: unknown = 'x'): unknown {
  let v = leaf;
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
}

describe('copyWithinLimits', () => {
  it('copies a document that fits as it is', () => {
    const doc = { ...ids, status: 'Nope', nested: { list: [1, 'two', { three: null }] } };
    const copy = copyWithinLimits(doc);
    expect(copy).toEqual({ document: doc, originalBytes: jsonByteLength(doc), keptBytes: jsonByteLength(doc), cut: [] });
    expect(copy.document).not.toBe(doc);
  });

  it.each([
    ['a 2.1 MiB string', { ...ids, blob: 'y'.repeat(2.1 * MiB) }],
    ['2.1 MiB of small members', { ...ids, items: Array.from({ length: 150_000 }, (_, i) => ({ i, name: `item-${i}` })) }],
    ['multi-byte text', { ...ids, blob: '€😀é'.repeat(300_000) }],
  ])('cuts %s to the byte budget, identifiers first, cuts marked', (_name, doc) => {
    const copy = copyWithinLimits(doc as Record<string, unknown>);
    expect(copy.originalBytes).toBe(jsonByteLength(doc));
    expect(copy.originalBytes).toBeGreaterThan(MiB);
    expect(copy.cut).toEqual(['size']);
    expect(copy.keptBytes).toBe(jsonByteLength(copy.document));
    expect(copy.keptBytes).toBeLessThanOrEqual(COPY_LIMITS.maxBytes + 1024);
    expect(copy.keptBytes).toBeGreaterThan(COPY_LIMITS.maxBytes - 1024);
    expect(copy.document).toMatchObject(ids);
    expect(Object.keys(copy.document).slice(0, 7)).toEqual(Object.keys(ids));
    expect(stringifyJson(copy.document)).toMatch(/truncated: \d+ (bytes|more)/);
  });

  it('keeps the identifiers even when they come last in the document', () => {
    const doc = { blob: 'z'.repeat(3 * MiB), ...ids };
    const copy = copyWithinLimits(doc);
    expect(copy.document).toMatchObject(ids);
    expect(copy.document.blob).toMatch(/^z+…\[truncated: 3145730 bytes\]$/);
  });

  it('says how many members and items were left out', () => {
    const copy = copyWithinLimits(
      { ...ids, list: Array.from({ length: 1000 }, (_, i) => i), more: 1, evenMore: 2 },
      { maxBytes: 1000, maxDepth: 64 },
    );
    const list = copy.document.list as unknown[];
    expect(list[list.length - 1]).toMatch(/^\[truncated: \d+ more item\(s\)\]$/);
    expect(list.slice(0, -1)).toEqual(list.slice(0, -1).map((_, i) => i));
    expect(copy.document[TRUNCATED_KEY]).toBe('[truncated: 2 more member(s)]');
  });

  it('replaces what nests deeper than maxDepth (any depth: iterative)', () => {
    const doc = { ...ids, externalId: nested(3_700), shallow: nested(3) };
    expect(() => structuredClone(doc)).toThrow('Maximum call stack size exceeded');
    const copy = copyWithinLimits(doc);
    expect(copy.cut).toEqual(['depth']);
    expect(tooDeepAt(copy.document, COPY_LIMITS.maxDepth)).toBeUndefined();
    expect(copy.document.shallow).toEqual(nested(3));
    let v = copy.document.externalId;
    for (let level = 2; level < COPY_LIMITS.maxDepth; level++) v = (v as { a: unknown }).a;
    expect(v).toEqual({ a: '[truncated: nested deeper than 64 levels]' });
    expect(copyWithinLimits({ ...ids, deep: nested(100_000) }).cut).toEqual(['depth']);
  });

  it('keeps a "__proto__" member as data', () => {
    const doc = JSON.parse(`{"id":"x","__proto__":{"polluted":true},"blob":"${'q'.repeat(2000)}"}`) as Record<string, unknown>;
    const copy = copyWithinLimits(doc, { maxBytes: 500, maxDepth: 64 });
    expect(Object.getPrototypeOf(copy.document)).toBe(Object.prototype);
    expect(Object.prototype.hasOwnProperty.call(copy.document, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('identifiersOnly', () => {
  it('keeps the short identifying scalars and says why', () => {
    expect(identifiersOnly({ ...ids, id: { not: 'a string' }, other: 1 }, 'why')).toEqual({
      ...ids,
      id: undefined,
      [TRUNCATED_KEY]: 'why',
    });
  });
});
