import { effectivePartitionKey, rangeContains } from '../../../src/util/epk';

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
