import { countByCause, explainDuplicates, instanceFromUserAgent, type Arrival } from '../../../bench/chaos/duplicate-causes';

const arrivals = (entries: Record<string, Arrival[]>): Map<string, Arrival[]> => new Map(Object.entries(entries));

describe('chaos: why ARM was told twice', () => {
  it("reads the instance from opstream's User-Agent, and nothing from another client's", () => {
    expect(instanceFromUserAgent('opstream/1.2.0 (chaos-i1-g2#a1b2c3d4)')).toBe('chaos-i1-g2#a1b2c3d4');
    expect(instanceFromUserAgent('node')).toBeUndefined();
    expect(instanceFromUserAgent(undefined)).toBeUndefined();
  });

  it('blames a kill only when the first deliverer died right after delivering', () => {
    const kills = [{ victim: 'chaos-i1-g2', killAt: 10_050 }];
    const found = explainDuplicates(
      arrivals({
        killed: [
          { at: 10_000, by: 'chaos-i1-g2#aaaa' },
          { at: 15_000, by: 'chaos-i3-g1#bbbb' },
        ],
        // The same two instances, but the first deliverer lived on: the claim did not hold the second back.
        handover: [
          { at: 30_000, by: 'chaos-i1-g2#aaaa' },
          { at: 31_000, by: 'chaos-i2-g1#cccc' },
        ],
        again: [
          { at: 40_000, by: 'chaos-i2-g1#cccc' },
          { at: 41_000, by: 'chaos-i2-g1#cccc' },
        ],
        anonymous: [
          { at: 50_000, by: undefined },
          { at: 51_000, by: 'chaos-i2-g1#cccc' },
        ],
        once: [{ at: 60_000, by: 'chaos-i2-g1#cccc' }],
      }),
      kills,
      0,
    );
    expect(Object.fromEntries(found.map((d) => [d.operation, d.cause]))).toEqual({
      killed: 'kill',
      handover: 'handover',
      again: 'same-instance',
      anonymous: 'unattributed',
    });
    expect(found.find((d) => d.operation === 'killed')?.detail).toBe('+10.0 s chaos-i1-g2#aaaa, +15.0 s chaos-i3-g1#bbbb');
  });

  it('does not blame a kill of another instance, or one long after the delivery', () => {
    const list = [
      { at: 10_000, by: 'chaos-i1-g2#aaaa' },
      { at: 20_000, by: 'chaos-i3-g1#bbbb' },
    ];
    expect(explainDuplicates(arrivals({ x: list }), [{ victim: 'chaos-i3-g1', killAt: 10_100 }], 0)[0]?.cause).toBe('handover');
    expect(explainDuplicates(arrivals({ x: list }), [{ victim: 'chaos-i1-g2', killAt: 18_000 }], 0)[0]?.cause).toBe('handover');
  });

  it('counts extra copies per cause', () => {
    const found = explainDuplicates(
      arrivals({
        thrice: [
          { at: 1, by: 'a#1' },
          { at: 2, by: 'a#1' },
          { at: 3, by: 'a#1' },
        ],
      }),
      [],
      0,
    );
    expect(countByCause(found)).toEqual({ kill: 0, 'same-instance': 2, handover: 0, unattributed: 0 });
  });
});
