import type { Logger } from '../logging/logger';
import type { ReadinessReport } from '../ops/ops-server';
import type { Clock } from '../util/clock';
import { dataRoleFix, isMissingDataRole, refusalParts } from '../auth/cosmos-auth';
import type { CosmosRequestDetails } from './cosmos-client';

/** One kind of refusal (container, operation, substatus) that is current, and how often it came. */
export interface PermissionRefusal {
  /** The container refused (`(account)` for requests above any container). */
  container: string;
  /** The SDK's operation type refused (`replace`, `create`, …). */
  operation: string;
  substatus: number;
  principal?: string;
  action?: string;
  firstAt: number;
  lastAt: number;
  count: number;
}

export interface PermissionWatchOptions {
  clock: Clock;
  logger: Logger;
  /** Counts each refusal by container (`opstream_permission_denied_total`). */
  count: (container: string) => void;
  /** A refusal not repeated for this long is forgotten. @defaultValue 300_000 */
  forgetAfterMs?: number;
}

/** The label of requests that name no container (account and database reads). */
export const NO_CONTAINER = '(account)';

/**
 * Watches every Cosmos DB answer for a refusal for want of a data-plane role (403 substatus
 * 5301/5302: a role removed while running, or scoped too narrowly). Each refusal is counted by
 * container; while one is current the instance is unready with the reason, and the first of its
 * kind is logged once as an error naming the role to assign. A refusal stays current until the
 * same request to the same container succeeds again (the role is back), or `forgetAfterMs` passes
 * without it being refused again.
 */
export class PermissionWatch {
  private readonly refusals = new Map<string, PermissionRefusal>();

  constructor(private readonly options: PermissionWatchOptions) {}

  /** Sees one answer (the Cosmos client's request observer calls it). */
  observe(status: number | 'error', request: CosmosRequestDetails): void {
    const container = request.container ?? NO_CONTAINER;
    const operation = request.operation ?? 'request';
    const key = `${container}\u0000${operation}`;
    if (typeof status === 'number' && status < 400) {
      this.refusals.delete(key);
      return;
    }
    if (typeof status !== 'number' || !isMissingDataRole(status, request.substatus)) return;
    this.options.count(container);
    const now = this.options.clock.now();
    const known = this.refusals.get(key);
    if (known && now - known.lastAt <= this.forgetAfterMs) {
      known.lastAt = now;
      known.count++;
      return;
    }
    const refusal: PermissionRefusal = {
      container,
      operation,
      substatus: request.substatus as number,
      ...refusalParts(request.message),
      firstAt: now,
      lastAt: now,
      count: 1,
    };
    this.refusals.set(key, refusal);
    this.options.logger.error(describeRefusal(refusal), {
      container,
      operation,
      substatus: refusal.substatus,
      principal: refusal.principal,
      action: refusal.action,
    });
  }

  /** The refusals still current, oldest first. */
  current(): PermissionRefusal[] {
    const now = this.options.clock.now();
    for (const [key, r] of this.refusals) if (now - r.lastAt > this.forgetAfterMs) this.refusals.delete(key);
    return [...this.refusals.values()].sort((a, b) => a.firstAt - b.firstAt);
  }

  /** The `permissions` check of `/readyz`. */
  readiness(): ReadinessReport['checks'][string] {
    const current = this.current();
    if (current.length === 0) return { ok: true, detail: 'no Cosmos DB request refused for want of a data role' };
    const where = current.map((r) => `${r.operation} on ${r.container} (substatus ${r.substatus}, ${r.count}x)`).join(', ');
    return { ok: false, detail: `Cosmos DB refuses this identity ${where}: ${dataRoleFix(current[0].principal)}` };
  }

  private get forgetAfterMs(): number {
    return this.options.forgetAfterMs ?? 300_000;
  }
}

/** One line: what was refused, to whom, and the role to assign where. */
export function describeRefusal(r: Pick<PermissionRefusal, 'container' | 'operation' | 'substatus' | 'principal' | 'action'>): string {
  const what = r.action ? `${r.action} (${r.operation})` : r.operation;
  return `Cosmos DB refused ${what} on ${r.container === NO_CONTAINER ? 'the account' : `container ${r.container}`} to this identity (HTTP 403, substatus ${r.substatus}): ${dataRoleFix(r.principal)}`;
}
