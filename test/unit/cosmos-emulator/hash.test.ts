import { effectivePartitionKey, parsePartitionKeyHeader, partitionKeyText } from '@opstream/cosmos-emulator/hash';
import { PkComponent } from '@opstream/cosmos-emulator/types';
import { sdkHashV2 } from './sdk-internals';

describe('effective partition key (hash v2)', () => {
  it('matches the published test vector', () => {
    expect(effectivePartitionKey(['redmond'])).toBe('22E342F38A486A088463DFF7838A5963');
  });

  it('agrees with the SDK for strings, numbers, booleans, null and None', () => {
    const values: PkComponent[] = [
      '',
      'a',
      'redmond',
      'héllo wörld 日本',
      'x'.repeat(300),
      0,
      1,
      -1,
      1.5,
      -3.25,
      1e300,
      Number.MAX_SAFE_INTEGER,
      true,
      false,
      null,
      {},
    ];
    for (let i = 0; i < 200; i++) values.push(Math.random().toString(36).slice(2), Math.round(Math.random() * 1e9) / 100);
    for (const v of values) {
      const sdkValue = typeof v === 'object' && v !== null ? {} : v;
      expect(effectivePartitionKey([v])).toBe(sdkHashV2([sdkValue]));
    }
  });

  it('keeps hashes below 40 (top two bits cleared), 32 upper-case hex digits', () => {
    for (let i = 0; i < 100; i++) {
      const h = effectivePartitionKey([`k${i}`]);
      expect(h).toMatch(/^[0-3][0-9A-F]{31}$/);
    }
  });

  it('parses the partition key header', () => {
    expect(parsePartitionKeyHeader('["p"]')).toEqual(['p']);
    expect(parsePartitionKeyHeader('[{}]')).toEqual([{}]);
    expect(parsePartitionKeyHeader('[null]')).toEqual([null]);
    expect(parsePartitionKeyHeader('["\\u00e9"]')).toEqual(['é']);
    expect(partitionKeyText([1])).toBe('[1]');
    for (const bad of ['p', '[]', '["a","b"]', '[[1]]', '[{"a":1}]'])
      expect(() => parsePartitionKeyHeader(bad)).toThrow(expect.objectContaining({ status: 400 }));
  });
});
