import { indexedTermCount } from '@opstream/cosmos-emulator/indexed-terms';
import {
  CHANGE_FEED_EMPTY_RU,
  KB,
  changeFeedUnits,
  insertUnits,
  queryUnits,
  readUnits,
  roundCharge,
  writeUnits,
} from '@opstream/cosmos-emulator/request-charge';

const DEFAULT_POLICY = {
  indexingMode: 'consistent',
  automatic: true,
  includedPaths: [{ path: '/*' }],
  excludedPaths: [{ path: '/"_etag"/?' }],
};

describe('cosmos emulator request-unit model, against the published figures', () => {
  it.each([
    ['a 1 KB point read costs 1 RU', readUnits(KB), 1],
    ['a 100 KB point read costs 10 RU', readUnits(100 * KB), 10],
    ['a small item still costs the 1 RU minimum', readUnits(200), 1],
    ['inserting 1 KB with nothing indexed costs 5.5 RU', insertUnits(KB, 0), 5.5],
    ['replacing costs twice the insert', writeUnits('replace', KB, 0), 11],
    ['a query that retrieved one 9,963-byte document costs 3.19 RU', roundCharge(queryUnits(1, [9963])), 3.19],
    ['a page of one 1 KB change costs 2 RU', changeFeedUnits([KB]), 2],
    ['an empty change-feed poll costs the minimum read', changeFeedUnits([]), CHANGE_FEED_EMPTY_RU],
  ])('%s', (_what, actual, expected) => {
    expect(actual).toBeCloseTo(expected, 2);
  });

  it('charges a query returning 1,000 1 KB items about 1,000 RU (published: "the cost is 1000")', () => {
    const ru = queryUnits(1000, new Array<number>(1000).fill(KB));
    expect(ru).toBeGreaterThan(1000);
    expect(ru).toBeLessThan(1015);
  });

  it('grows with the number of indexed property values', () => {
    expect(insertUnits(KB, 20)).toBeCloseTo(7.5, 5);
    expect(writeUnits('delete', KB, 20)).toBeCloseTo(insertUnits(KB, 20), 5);
  });
});

describe('cosmos emulator indexed terms under an indexing policy', () => {
  const doc = {
    id: 'a',
    pk: 'p',
    n: 1,
    tags: ['x', 'y'],
    nested: { a: 1, b: { c: true } },
    _etag: '"e"',
    _ts: 1,
    _rid: 'r',
    _self: 's',
    _attachments: 'a/',
  };

  it('indexes every value but _etag under the default policy (system links are never indexed)', () => {
    // id, pk, n, tags[] ×2, nested/a, nested/b/c, _ts
    expect(indexedTermCount(doc, DEFAULT_POLICY)).toBe(8);
  });

  it('indexes nothing with indexingMode none or automatic false', () => {
    expect(indexedTermCount(doc, { indexingMode: 'none' })).toBe(0);
    expect(indexedTermCount(doc, { ...DEFAULT_POLICY, automatic: false })).toBe(0);
  });

  it('lets the most specific path decide (an excluded subtree inside an included root, an included scalar inside an excluded root)', () => {
    expect(indexedTermCount(doc, { includedPaths: [{ path: '/*' }], excludedPaths: [{ path: '/nested/*' }, { path: '/"_etag"/?' }] })).toBe(
      6,
    );
    expect(indexedTermCount(doc, { includedPaths: [{ path: '/pk/?' }, { path: '/tags/[]/?' }], excludedPaths: [{ path: '/*' }] })).toBe(3);
  });
});
