import { epkInRange, initialBounds, rangesOverlap, splitPoint } from '@opstream/cosmos-emulator/partitioning';

describe('EPK range arithmetic', () => {
  it('lays 4 ranges out as "" | 10 | 20 | 30 | FF', () => {
    expect(initialBounds(4)).toEqual([
      { min: '', max: '10' },
      { min: '10', max: '20' },
      { min: '20', max: '30' },
      { min: '30', max: 'FF' },
    ]);
    expect(initialBounds(1)).toEqual([{ min: '', max: 'FF' }]);
  });

  it('tiles the space contiguously for any count', () => {
    for (const n of [2, 3, 5, 7, 16, 64]) {
      const b = initialBounds(n);
      expect(b).toHaveLength(n);
      expect(b[0].min).toBe('');
      expect(b[n - 1].max).toBe('FF');
      for (let i = 1; i < n; i++) {
        expect(b[i].min).toBe(b[i - 1].max);
        expect(b[i].min > b[i - 1].min).toBe(true);
      }
    }
  });

  it('splits at the midpoint of the hash space (the last range ends at 40, not FF)', () => {
    expect(splitPoint({ min: '', max: '10' })).toBe('08');
    expect(splitPoint({ min: '10', max: '20' })).toBe('18');
    expect(splitPoint({ min: '30', max: 'FF' })).toBe('38');
    expect(splitPoint({ min: '', max: 'FF' })).toBe('20');
    const mid = splitPoint({ min: '08', max: '0C' })!;
    expect(mid > '08' && mid < '0C').toBe(true);
  });

  it('refuses to split a range of width one', () => {
    const a = '0000000000000000000000000000000A';
    const b = '0000000000000000000000000000000B';
    expect(splitPoint({ min: a, max: b })).toBeUndefined();
  });

  it('tests membership and overlap with FF as the open end', () => {
    expect(epkInRange('22E342F38A486A088463DFF7838A5963', '20', '30')).toBe(true);
    expect(epkInRange('30', '20', '30')).toBe(false);
    expect(epkInRange('3F', '30', 'FF')).toBe(true);
    expect(rangesOverlap('', '10', '08', '20')).toBe(true);
    expect(rangesOverlap('', '10', '10', '20')).toBe(false);
    expect(rangesOverlap('30', 'FF', '38', 'FF')).toBe(true);
  });
});
