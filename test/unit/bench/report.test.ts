import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderSection, renderSvg, type BenchReport } from '../../../bench/harness/report';
import { lowerSpread, spread, spreadMs } from '../../../bench/harness/spread';

/** A full run recorded on its own (commit 96a0972): every phase present. A fixture, not the record, which moves on. */
const recorded = (): BenchReport =>
  JSON.parse(readFileSync(join(__dirname, '../../fixtures/bench-report-96a0972.json'), 'utf8')) as BenchReport;

describe('spread', () => {
  it('gives the mean and the range, one value for one run, or says the runs agree', () => {
    expect(spread([10, 12])).toBe('11.0 (10.0–12.0)');
    expect(spread([3.04, 3.04], 2)).toBe('3.04 (all runs)');
    expect(spread([undefined, 5])).toBe('5.0');
    expect(spread([undefined])).toBe('n/a');
  });

  it('prints milliseconds in the unit their mean reads best in', () => {
    expect(spreadMs([52, 61])).toBe('57 ms (52–61)');
    expect(spreadMs([14_600, 14_800])).toBe('14.7 s (14.6–14.8)');
    expect(spreadMs([2850])).toBe('2.85 s');
    expect(spreadMs([undefined])).toBe('n/a');
  });

  it('takes ratios run by run, lower or higher', () => {
    expect(lowerSpread([100, 200], [1, 1])).toBe('150× lower (100–200)');
    expect(lowerSpread([16.2], [66.2])).toBe('4.09× higher');
    expect(lowerSpread([0], [0])).toBe('=');
  });
});

describe('the "opstream vs the polling baseline" section', () => {
  it('renders one run as it always did', () => {
    const text = renderSection(recorded());
    expect(text).toContain('| reaction latency p99 | 29.6 s | 109 ms | 271× lower |');
    expect(text).toContain('**full mode**');
    expect(text).not.toContain('(all runs)');
  });

  it("renders several runs with each figure's mean and range, ratios within each run, and each run's machine", () => {
    const a = recorded();
    const b = recorded();
    b.scripted = b.scripted.map((s) => (s.system === 'opstream' ? { ...s, reaction: { ...s.reaction, p99: s.reaction.p99 * 2 } } : s));
    b.sweep = b.sweep.map((l) => ({ ...l, completedPerSecond: l.completedPerSecond * 1.1 }));
    b.scaleOut = b.scaleOut.map((l) => ({ ...l, completedPerSecond: l.instances === 1 ? l.completedPerSecond : l.completedPerSecond * 2 }));
    const text = renderSection([a, b]);

    expect(text).toContain('**2 full runs**');
    // 109 and 218 ms against 29.6 s in both runs: 271× and 136×.
    expect(text).toContain('| reaction latency p99 | 29.6 s (all runs) | 164 ms (109–218) | 203× lower (136–271) |');
    const best = a.sweep.find((l) => l.system === 'opstream' && l.rate === 120)!;
    expect(text).toContain(
      `| opstream | 120 | ${((best.completedPerSecond * 2.1) / 2).toFixed(1)} (${best.completedPerSecond.toFixed(1)}–${(best.completedPerSecond * 1.1).toFixed(1)}) |`,
    );
    // Gain vs 1 is taken within each run: run b doubled every level above one instance.
    const one = a.scaleOut.find((l) => l.instances === 1)!.completedPerSecond;
    const four = a.scaleOut.find((l) => l.instances === 4)!.completedPerSecond;
    expect(text).toContain(`${((four / one) * 1.5).toFixed(2)}× (${(four / one).toFixed(2)}–${((four / one) * 2).toFixed(2)})`);
    // Every measurement of every run has its own row, with its load.
    expect(text.match(/^\| (baseline|opstream)( ×\d)? @ \d+ \| [12] \|/gm)).toHaveLength(2 * (a.sweep.length + a.scaleOut.length));
    expect(text).toContain('Machine during this phase: run 1: ');
    expect(renderSvg([a, b])).toContain('mean of 2 runs');
  });
});
