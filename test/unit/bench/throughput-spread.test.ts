import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchReport } from '../../../bench/harness/report';
import { render, spread } from '../../../bench/throughput-spread';

const recorded = (): BenchReport => JSON.parse(readFileSync(join(__dirname, '../../../bench/opstream-vs-baseline.json'), 'utf8')) as BenchReport;

describe('throughput-spread', () => {
  it('gives the mean and the range, or one value when the runs agree', () => {
    expect(spread([10, 12])).toBe('11.0 (10.0–12.0)');
    expect(spread([3.04, 3.04], 2)).toBe('3.04 (all runs)');
    expect(spread([undefined, 5])).toBe('5.0 (all runs)');
    expect(spread([undefined])).toBe('n/a');
  });

  it('renders each level over the runs, the scale-out gain run by run, and each run with its load', () => {
    const a = recorded();
    const b = recorded();
    b.sweep = b.sweep.map((l) => ({ ...l, completedPerSecond: l.completedPerSecond * 1.1 }));
    b.scaleOut = b.scaleOut.map((l) => ({ ...l, completedPerSecond: l.instances === 1 ? l.completedPerSecond : l.completedPerSecond * 2 }));
    const text = render([
      { file: 'a.json', report: a },
      { file: 'b.json', report: b },
    ]);
    const best = a.sweep.find((l) => l.system === 'opstream' && l.rate === 120)!;
    expect(text).toContain(`| opstream | 120 | ${((best.completedPerSecond * 2.1) / 2).toFixed(1)} (${best.completedPerSecond.toFixed(1)}–${(best.completedPerSecond * 1.1).toFixed(1)}) |`);
    // Gain vs 1 is taken within each run: run b doubled every level above one instance.
    const one = a.scaleOut.find((l) => l.instances === 1)!.completedPerSecond;
    const four = a.scaleOut.find((l) => l.instances === 4)!.completedPerSecond;
    expect(text).toContain(`${((four / one) * 1.5).toFixed(2)} (${(four / one).toFixed(2)}–${((four / one) * 2).toFixed(2)})×`);
    expect(text.match(/^\| (baseline|opstream)( ×\d)? @ \d+ \|/gm)).toHaveLength(a.sweep.length + a.scaleOut.length);
  });
});
