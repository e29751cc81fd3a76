import { context, propagation } from '@opentelemetry/api';
import type { ArmNotification, Operation } from '../../domain/types';
import { correlationHeaders, correlationOf } from '../../tracing';
import { OpstreamError } from '../../domain/errors';
import { isTerminal } from '../../domain/statuses';
import { validate } from '../../schemas/validator';
import { BackoffPolicy, retry } from '../../util/backoff';

/**
 * Tells ARM an operation is over: `POST notificationUri` with the operation status body. Any answer
 * below 400 is a delivery. Retried here a few times (quick hiccups); a delivery that still fails
 * throws a retriable error, so the scheduler tries again later with its own backoff. The caller
 * clears `notificationUri` after a delivery: ARM is told once, or twice after an ill-timed crash.
 */
export class NotificationFailedError extends OpstreamError {
  readonly retriable = true;
  constructor(operationId: string, readonly status: number | undefined, cause?: unknown) {
    super(`ARM notification for operation ${operationId} failed${status ? ` with HTTP ${status}` : ''}`, { cause, context: { operationId, status } });
  }
}

export interface ArmNotifierOptions {
  timeoutMs?: number;
  retry?: BackoffPolicy;
  /**
   * Sent as `User-Agent`, so ARM's request logs (and an SRE reading them) can tell which replica
   * delivered — e.g. `opstream/1.4.0 (opstream-0#3fa2c1d9)`.
   */
  userAgent?: string;
}

const DEFAULT_RETRY: BackoffPolicy = { retries: 2, initialDelayMs: 100, maxDelayMs: 1000, multiplier: 3, jitter: 0.2 };

export class ArmNotifier {
  private readonly timeoutMs: number;
  private readonly retryPolicy: BackoffPolicy;
  private readonly userAgent: string | undefined;

  constructor(options: ArmNotifierOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.retryPolicy = options.retry ?? DEFAULT_RETRY;
    this.userAgent = options.userAgent;
  }

  /** The body ARM expects; validated against `schemas/arm-notification.schema.json`. */
  static bodyOf(op: Operation): ArmNotification {
    if (!isTerminal(op.status)) throw new Error(`operation ${op.id} is ${op.status}: only terminal operations are notified`);
    const body: ArmNotification = {
      id: op.operationId ?? op.id,
      name: op.id,
      status: op.status,
      startTime: op.startTime,
      endTime: op.lastTransitionTime,
      ...(op.error ? { error: op.error } : {}),
    };
    return validate('armNotification', body);
  }

  /** JSON, the operation's correlation ids as ARM headers, and the active span's `traceparent` (none when tracing is off). */
  private headersFor(op: Operation): Record<string, string> {
    const headers: Record<string, string> = { 'content-type': 'application/json', ...correlationHeaders(correlationOf(op)) };
    if (this.userAgent) headers['user-agent'] = this.userAgent;
    propagation.inject(context.active(), headers);
    return headers;
  }

  /**
   * `signal` stops further attempts, never a request already sent: aborting one ARM may have
   * received would leave its delivery unknown, and whoever notifies next would tell ARM twice.
   * A request is bounded by `timeoutMs` alone.
   */
  async deliver(op: Operation, signal?: AbortSignal): Promise<void> {
    const uri = op.notificationUri;
    if (!uri) return;
    const body = JSON.stringify(ArmNotifier.bodyOf(op));
    await retry(
      async () => {
        signal?.throwIfAborted();
        let res: Response;
        try {
          res = await fetch(uri, { method: 'POST', headers: this.headersFor(op), body, signal: AbortSignal.timeout(this.timeoutMs) });
        } catch (err) {
          throw new NotificationFailedError(op.id, undefined, err);
        }
        // Drained, not awaited: the status decides, and every moment between ARM's answer and the
        // write that records it is one in which a crash makes the next owner notify again.
        void res.arrayBuffer().catch(() => undefined);
        if (res.status >= 400) throw new NotificationFailedError(op.id, res.status);
      },
      () => ({ retry: true }),
      this.retryPolicy,
      { signal },
    );
  }
}
