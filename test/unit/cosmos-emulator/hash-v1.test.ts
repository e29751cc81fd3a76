import { decodeNumberV1, effectivePartitionKeyV1, v1Bound } from '@opstream/cosmos-emulator/hash-v1';
import { initialBounds, splitPoint } from '@opstream/cosmos-emulator/partitioning';
import { PkComponent } from '@opstream/cosmos-emulator/types';
import { sdkHashV1 } from './sdk-internals';

describe('effective partition key (hash v1)', () => {
  it('agrees with the SDK for strings (long and multi-byte ones too), numbers, booleans, null and None', () => {
    const values: PkComponent[] = [
      '',
      'a',
      'redmond',
      'héllo wörld 日本',
      'x'.repeat(300),
      'ü'.repeat(120),
      '😀'.repeat(60),
      'ÿ\u00ff',
      0,
      1,
      -1,
      1.5,
      -3.25,
      1e300,
      -1e-300,
      Number.MAX_SAFE_INTEGER,
      true,
      false,
      null,
      {},
    ];
    for (let i = 0; i < 300; i++) values.push(`k${i}`, i * 7.25 - 1000);
    for (const v of values) {
      const sdkValue = typeof v === 'object' && v !== null ? {} : v;
      expect([v, effectivePartitionKeyV1([v])]).toEqual([v, sdkHashV1([sdkValue])]);
    }
  });

  it('gives strings that share their first 100 characters the same EPK', () => {
    const prefix = 'p'.repeat(100);
    expect(effectivePartitionKeyV1([`${prefix}one`])).toBe(effectivePartitionKeyV1([`${prefix}two`]));
    expect(effectivePartitionKeyV1([`${prefix.slice(1)}one`])).not.toBe(effectivePartitionKeyV1([`${prefix.slice(1)}two`]));
  });

  it('encodes hashes order-preservingly and decodes range bounds back', () => {
    const hashes = [0, 1, 2, 127, 128, 255, 256, 65_535, 12_345_678, 2 ** 31, 2 ** 32 - 1];
    for (const h of hashes) expect(decodeNumberV1(v1Bound(h))).toBe(h);
    const bounds = hashes.map(v1Bound);
    expect([...bounds].sort()).toEqual(bounds);
    expect(decodeNumberV1('08616200')).toBeUndefined();
  });

  it('spreads initial ranges over the 32-bit hash space and splits at the hash midpoint', () => {
    const four = initialBounds(4, 1);
    expect(four.map((b) => [b.min, b.max])).toEqual([
      ['', v1Bound(2 ** 30)],
      [v1Bound(2 ** 30), v1Bound(2 ** 31)],
      [v1Bound(2 ** 31), v1Bound(3 * 2 ** 30)],
      [v1Bound(3 * 2 ** 30), 'FF'],
    ]);
    expect(splitPoint(four[3], 1)).toBe(v1Bound(3.5 * 2 ** 30));
    expect(splitPoint(four[0], 1)).toBe(v1Bound(2 ** 29));
    expect(splitPoint({ min: v1Bound(7), max: v1Bound(8) }, 1)).toBeUndefined();
  });
});
