/**
 * An ARM error cut to a bounded size. Error text comes from Clusters Service answers and from
 * documents another service wrote; it is copied into Operation documents, ARM notifications and
 * Operation events (a Service Bus message is at most 256 KB on the standard tier), so no copy may be
 * as large as its source allows. Only the ARM error fields are kept (code, message, target,
 * details); each cut is marked.
 */
import { truncateText } from '../util/truncate';
import type { ArmError } from './types.generated';

export const ARM_ERROR_LIMITS = Object.freeze({
  codeChars: 256,
  targetChars: 1024,
  /** The top-level message. */
  messageChars: 4096,
  /** The message of each detail. */
  detailMessageChars: 1024,
  /** Details kept in all, at every level together. */
  details: 32,
  /** Levels kept, the error itself being the first. */
  depth: 3,
});

export type ArmErrorLimits = { readonly [K in keyof typeof ARM_ERROR_LIMITS]: number };

/** The code of the detail that stands for details left out. */
export const TRUNCATED_DETAILS_CODE = 'Truncated';

function leftOut(count: number, where: string): ArmError {
  return { code: TRUNCATED_DETAILS_CODE, message: `[truncated: ${count} more detail(s)${where}]` };
}

/**
 * `error` within `limits`: strings cut with "…[truncated: N characters]", details beyond the count
 * or the depth replaced by one detail coded `Truncated` saying how many were left out. Fields other
 * than code, message, target and details are dropped. Recursion stops at `limits.depth`.
 */
export function boundedArmError(error: ArmError, limits: ArmErrorLimits = ARM_ERROR_LIMITS): ArmError {
  let budget = limits.details;
  const visit = (e: ArmError, level: number): ArmError => {
    const out: ArmError = {
      code: truncateText(String(e.code), limits.codeChars),
      message: truncateText(String(e.message), level === 0 ? limits.messageChars : limits.detailMessageChars),
    };
    if (typeof e.target === 'string') out.target = truncateText(e.target, limits.targetChars);
    const details = Array.isArray(e.details) ? e.details : undefined;
    if (details === undefined) return out;
    if (details.length > 0 && level + 1 >= limits.depth) {
      out.details = [leftOut(details.length, ', nested deeper')];
      return out;
    }
    const kept: ArmError[] = [];
    for (const detail of details) {
      if (budget === 0) break;
      budget--;
      kept.push(visit(detail, level + 1));
    }
    if (kept.length < details.length) kept.push(leftOut(details.length - kept.length, ''));
    out.details = kept;
    return out;
  };
  return visit(error, 0);
}
