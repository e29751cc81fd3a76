import { effectivePartitionKey, effectivePartitionKeyIn, rangeContains, type PartitionKeyValue } from '../../../src/changefeed/util/epk';
import { effectivePartitionKeyV1 } from '../../../src/changefeed/util/epk-v1';
import { sdkHashPartitionKey, sdkHashV1 } from '../cosmos-emulator/sdk-internals';

describe('effective partition key (hash v2)', () => {
  it('matches the SDK test vector for ["redmond"]', () => {
    expect(effectivePartitionKey('redmond')).toBe('22E342F38A486A088463DFF7838A5963');
    expect(effectivePartitionKey(['redmond'])).toBe('22E342F38A486A088463DFF7838A5963');
  });

  it('always falls in the lower quarter of the hex space, so "" .. "FF" covers every key', () => {
    for (const key of ['a', 'b', '0b0c4e4e-1c1a-4d0e-9a8c-111111111111', '', 'Ünïcödé']) {
      const epk = effectivePartitionKey(key);
      expect(epk).toMatch(/^[0-3][0-9A-F]{31}$/);
    }
  });

  it('places keys in half-open ranges', () => {
    const epk = effectivePartitionKey('redmond');
    expect(rangeContains({ min: '', max: '10' }, epk)).toBe(false);
    expect(rangeContains({ min: '20', max: '30' }, epk)).toBe(true);
    expect(rangeContains({ min: '22E342F38A486A088463DFF7838A5963', max: 'FF' }, epk)).toBe(true);
    expect(rangeContains({ min: '', max: '22E342F38A486A088463DFF7838A5963' }, epk)).toBe(false);
  });
});

describe('effective partition key (hash v1) and the hash a container definition picks', () => {
  const values: PartitionKeyValue[] = [
    '',
    'redmond',
    'héllo wörld 日本',
    'x'.repeat(300),
    '😀'.repeat(60),
    0,
    -1,
    1.5,
    1e300,
    true,
    false,
    null,
  ];
  for (let i = 0; i < 100; i++) values.push(`k${i}`, i * 7.25 - 300);

  it('computes v1 exactly as @azure/cosmos does (the SDK vector ["redmond"] included)', () => {
    expect(effectivePartitionKeyV1('redmond')).toBe('05C1EFE313830C087366656E706F6500');
    for (const v of values) expect([v, effectivePartitionKeyV1(v)]).toEqual([v, sdkHashV1([v])]);
  });

  it('picks the hash the SDK picks: v1 when no version is given, v2 only for version 2, v2 per component for MultiHash', () => {
    const definitions = [
      { paths: ['/pk'] },
      { paths: ['/pk'], kind: 'Hash' },
      { paths: ['/pk'], kind: 'Hash', version: 1 },
      { paths: ['/pk'], kind: 'Hash', version: 2 },
    ];
    for (const definition of definitions) {
      for (const v of values)
        expect([definition, v, effectivePartitionKeyIn(definition, v)]).toEqual([definition, v, sdkHashPartitionKey([v], definition)]);
    }
    const hierarchical = { paths: ['/a', '/b'], kind: 'MultiHash', version: 2 };
    expect(effectivePartitionKeyIn(hierarchical, ['tenant', 7])).toBe(sdkHashPartitionKey(['tenant', 7], hierarchical));
    expect(effectivePartitionKeyIn(hierarchical, ['tenant'])).toBe(sdkHashPartitionKey(['tenant'], hierarchical));
  });
});
