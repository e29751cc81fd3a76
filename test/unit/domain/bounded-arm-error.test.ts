import { ARM_ERROR_LIMITS, boundedArmError, TRUNCATED_DETAILS_CODE } from '../../../src/domain/bounded-arm-error';
import type { ArmError } from '../../../src/domain/types.generated';

/** ARM errors are copied into documents, notifications and events: each copy is bounded, each cut marked. */
describe('boundedArmError', () => {
  it('an error within the bounds is kept as it is', () => {
    const error: ArmError = {
      code: 'MultipleErrorsOccurred',
      message: 'two checks failed',
      target: 'properties.network',
      details: [
        { code: 'A', message: 'a' },
        { code: 'B', message: 'b', details: [] },
      ],
    };
    expect(boundedArmError(error)).toEqual(error);
  });

  it('cuts code, message and target, marking each cut with the original length', () => {
    const out = boundedArmError({ code: 'c'.repeat(1000), message: 'm'.repeat(10_000), target: 't'.repeat(2000) });
    expect(out.code).toBe(`${'c'.repeat(ARM_ERROR_LIMITS.codeChars)}…[truncated: 1000 characters]`);
    expect(out.message).toBe(`${'m'.repeat(ARM_ERROR_LIMITS.messageChars)}…[truncated: 10000 characters]`);
    expect(out.target).toBe(`${'t'.repeat(ARM_ERROR_LIMITS.targetChars)}…[truncated: 2000 characters]`);
  });

  it('details: their messages are cut shorter, their number is bounded in all, and what is left out is counted', () => {
    const details = Array.from({ length: 50 }, (_, i) => ({ code: `C${i}`, message: 'x'.repeat(5000) }));
    const out = boundedArmError({ code: 'MultipleErrorsOccurred', message: 'many', details });
    expect(out.details).toHaveLength(ARM_ERROR_LIMITS.details + 1);
    expect(out.details?.[0]?.message).toBe(`${'x'.repeat(ARM_ERROR_LIMITS.detailMessageChars)}…[truncated: 5000 characters]`);
    expect(out.details?.[ARM_ERROR_LIMITS.details]).toEqual({
      code: TRUNCATED_DETAILS_CODE,
      message: `[truncated: ${50 - ARM_ERROR_LIMITS.details} more detail(s)]`,
    });
  });

  it('details nested deeper than the depth are replaced by one marker; the count is shared by every level', () => {
    const deep: ArmError = {
      code: 'L0',
      message: '',
      details: [
        {
          code: 'L1',
          message: '',
          details: [
            {
              code: 'L2',
              message: '',
              details: [
                { code: 'L3', message: '' },
                { code: 'L3b', message: '' },
              ],
            },
          ],
        },
      ],
    };
    expect(boundedArmError(deep).details?.[0]?.details?.[0]?.details).toEqual([
      { code: TRUNCATED_DETAILS_CODE, message: '[truncated: 2 more detail(s), nested deeper]' },
    ]);
    const wide = Array.from({ length: 20 }, (_, i) => ({
      code: `P${i}`,
      message: '',
      details: Array.from({ length: 20 }, (_, j) => ({ code: `P${i}.${j}`, message: '' })),
    }));
    const out = boundedArmError({ code: 'Top', message: '', details: wide });
    const count = (e: ArmError): number =>
      (e.details ?? []).filter((d) => d.code !== TRUNCATED_DETAILS_CODE).reduce((n, d) => n + 1 + count(d), 0);
    expect(count(out)).toBe(ARM_ERROR_LIMITS.details);
  });

  it('keeps only the ARM error fields: anything else a document carries is dropped', () => {
    const out = boundedArmError({ code: 'X', message: 'y', additionalInfo: 'z'.repeat(1_000_000) } as ArmError);
    expect(out).toEqual({ code: 'X', message: 'y' });
  });
});
