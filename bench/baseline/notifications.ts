/**
 * ARM notifications of the baseline: at terminal, `POST notificationUri` (opstream's ArmNotifier,
 * so both systems deliver the same body the same way), then clear `notificationUri` so ARM is told
 * once. A failed delivery is queued in memory and retried at the start of later passes (terminal
 * operations drop out of the scan, so only this queue remembers them; a crash loses the retry, as
 * in the scanner it imitates).
 */
import type { OperationsRepository } from '../../src/cosmos';
import type { Logger } from '../../src/logging/logger';
import { ArmNotifier, ARM_NOTIFICATION_DEFAULTS } from '../../src/arm/arm-notifier';
import { parseHostSuffixes } from '../../src/arm/notification-target';
import type { Operation, Stored } from '../../src/domain/types';

export class NotificationQueue {
  private readonly pending = new Map<string, Stored<Operation>>();
  private readonly notifier: ArmNotifier;

  constructor(
    private readonly operations: OperationsRepository,
    private readonly logger: Logger,
    allowLoopback: boolean,
  ) {
    this.notifier = new ArmNotifier({
      policy: { allowedHostSuffixes: parseHostSuffixes(ARM_NOTIFICATION_DEFAULTS.allowedHostSuffixes), allowLoopback },
    });
  }

  /** Delivers now; a failure worth retrying is kept for `retryPending`, a refusal is dropped. */
  async notify(op: Stored<Operation>, signal?: AbortSignal): Promise<void> {
    if (!op.notificationUri) return;
    try {
      const attempt = await this.notifier.deliver(op, signal);
      if (attempt.kind === 'retry') {
        this.logger.warn('ARM notification failed; retrying next pass', { operationId: op.id, error: attempt.detail });
        this.pending.set(op.id, op);
        return;
      }
      if (attempt.kind === 'refused')
        this.logger.warn('ARM notification refused; not retried', { operationId: op.id, reason: attempt.reason, error: attempt.detail });
      this.pending.delete(op.id);
      await this.operations.clearNotificationUri(op.partitionKey, op.id);
    } catch (err) {
      this.logger.warn('ARM notification failed; retrying next pass', { operationId: op.id, error: (err as Error).message });
      this.pending.set(op.id, op);
    }
  }

  /** One more attempt for every failed delivery. */
  async retryPending(signal?: AbortSignal): Promise<void> {
    for (const op of [...this.pending.values()]) {
      if (signal?.aborted) return;
      await this.notify(op, signal);
    }
  }

  get size(): number {
    return this.pending.size;
  }
}
