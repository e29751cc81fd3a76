import { context, propagation } from '@opentelemetry/api';
import type { ArmNotification, Operation } from '../domain/types';
import { correlationHeaders, correlationOf } from '../tracing';
import { isTerminal } from '../domain/statuses';
import { validate } from '../schemas/validator';
import { pinnedPost, PostFailedError } from '../util/pinned-post';
import { meaningOf, type FinalReason, type RetryReason } from './notification-answer';
import {
  checkNotificationUri,
  parseHostSuffixes,
  resolveNotificationTarget,
  systemResolver,
  type NotificationTargetPolicy,
  type Resolver,
  type TargetRefusal,
  type TargetRefusalReason,
} from './notification-target';

/** Why a notification is given up: the target is not allowed, or ARM's answer is final. */
type RefusalReason = TargetRefusalReason | FinalReason;

export type NotificationAttempt =
  | { kind: 'delivered'; status: number }
  /** Worth another attempt later (after `retryAfterMs` at least, when ARM said so). */
  | { kind: 'retry'; reason: RetryReason; status?: number; retryAfterMs?: number; detail: string }
  /** Final: the target is not allowed (no request was sent), or ARM's answer says a retry cannot help. */
  | { kind: 'refused'; reason: RefusalReason; status?: number; detail: string };

export interface ArmNotifierOptions {
  /** Where notifications may go. @defaultValue ARM_NOTIFICATION_DEFAULTS (ARM's hosts, no loopback) */
  policy?: NotificationTargetPolicy;
  /** One attempt, from the name lookup to ARM's answer. @defaultValue 10_000 */
  timeoutMs?: number;
  /**
   * Sent as `User-Agent`, so ARM's request logs (and an SRE reading them) can tell which replica
   * delivered — e.g. `opstream/1.4.0 (opstream-0#3fa2c1d9)`.
   */
  userAgent?: string;
  /** Resolves host names (tests inject one). @defaultValue the system resolver */
  resolver?: Resolver;
}

/** The defaults of the `notifications.*` settings (the configuration schema's must agree: a test checks). */
export const ARM_NOTIFICATION_DEFAULTS = Object.freeze({
  allowedHostSuffixes: 'management.azure.com,management.usgovcloudapi.net,management.chinacloudapi.cn',
  allowLoopback: false,
  timeoutMs: 10_000,
  deadlineMs: 3_600_000,
  retryMaxDelayMs: 60_000,
});

/** Of an answer opstream does not need, this much is read (to say why in a log line), then the connection closes. */
export const MAX_ANSWER_BYTES = 4096;
/** What of an answer's body goes into a detail (a log line, the Operation's record). */
const EXCERPT_CHARS = 200;

/**
 * Tells ARM an operation is over: one `POST notificationUri` with the operation status body, to a
 * target `notification-target.ts` allowed, per call. What the answer means (`notification-answer.ts`)
 * is returned, never thrown: the caller retries later, gives up, or records the delivery. The caller
 * clears `notificationUri` after a delivery: ARM is told once, or twice after an ill-timed crash.
 */
export class ArmNotifier {
  readonly timeoutMs: number;
  private readonly policy: NotificationTargetPolicy;
  private readonly userAgent: string | undefined;
  private readonly resolver: Resolver;

  constructor(options: ArmNotifierOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? ARM_NOTIFICATION_DEFAULTS.timeoutMs;
    this.policy = options.policy ?? {
      allowedHostSuffixes: parseHostSuffixes(ARM_NOTIFICATION_DEFAULTS.allowedHostSuffixes),
      allowLoopback: ARM_NOTIFICATION_DEFAULTS.allowLoopback,
    };
    this.userAgent = options.userAgent;
    this.resolver = options.resolver ?? systemResolver;
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

  /** Why `uri` will never be notified, from its text alone (no lookup); undefined when it may be. */
  refusalOf(uri: string): TargetRefusal | undefined {
    const checked = checkNotificationUri(uri, this.policy);
    return checked.ok ? undefined : checked.refusal;
  }

  /** JSON, the operation's correlation ids as ARM headers, and the active span's `traceparent` (none when tracing is off). */
  private headersFor(op: Operation): Record<string, string> {
    const headers: Record<string, string> = { 'content-type': 'application/json', ...correlationHeaders(correlationOf(op)) };
    if (this.userAgent) headers['user-agent'] = this.userAgent;
    propagation.inject(context.active(), headers);
    return headers;
  }

  /**
   * One attempt. `signal` stops it before anything is sent, never a request already sent: aborting
   * one ARM may have received would leave its delivery unknown, and whoever notifies next would tell
   * ARM twice. A request is bounded by `timeoutMs` alone.
   */
  async deliver(op: Operation, signal?: AbortSignal): Promise<NotificationAttempt> {
    const uri = op.notificationUri;
    if (!uri) throw new Error(`operation ${op.id} has no notificationUri`);
    const checked = checkNotificationUri(uri, this.policy);
    if (!checked.ok) return { kind: 'refused', ...checked.refusal };
    const { target } = checked;
    const body = JSON.stringify(ArmNotifier.bodyOf(op));
    signal?.throwIfAborted();
    const started = Date.now();
    let resolved: Awaited<ReturnType<typeof resolveNotificationTarget>>;
    try {
      resolved = await withTimeout(
        resolveNotificationTarget(target, this.policy, this.resolver),
        this.timeoutMs,
        `looking up ${target.host}`,
      );
    } catch (err) {
      return {
        kind: 'retry',
        reason: err instanceof PostFailedError ? err.kind : 'connection',
        detail: `${target.origin}: ${(err as Error).message}`,
      };
    }
    if (!resolved.ok) return { kind: 'refused', ...resolved.refusal };
    signal?.throwIfAborted();
    try {
      const answer = await pinnedPost({
        url: target.url,
        host: target.host,
        port: target.port,
        addresses: resolved.addresses,
        headers: this.headersFor(op),
        body,
        timeoutMs: Math.max(1, this.timeoutMs - (Date.now() - started)),
        maxAnswerBytes: MAX_ANSWER_BYTES,
      });
      const retryAfter = answer.headers['retry-after'];
      const meaning = meaningOf(answer.status, Array.isArray(retryAfter) ? retryAfter[0] : retryAfter);
      if (meaning.kind === 'delivered') return { kind: 'delivered', status: answer.status };
      const detail = `${target.origin} answered HTTP ${answer.status}${excerptOf(answer.excerpt)}`;
      if (meaning.kind === 'final')
        return {
          kind: 'refused',
          reason: meaning.reason,
          status: answer.status,
          detail: meaning.reason === 'redirect' ? `${detail} (redirects are not followed)` : detail,
        };
      return {
        kind: 'retry',
        reason: meaning.reason,
        status: answer.status,
        ...(meaning.retryAfterMs !== undefined ? { retryAfterMs: meaning.retryAfterMs } : {}),
        detail,
      };
    } catch (err) {
      if (err instanceof PostFailedError) return { kind: 'retry', reason: err.kind, detail: err.message };
      throw err;
    }
  }
}

/** A lookup cannot be cancelled; past the time allowed its answer is ignored. */
function withTimeout<T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new PostFailedError('timeout', `${what} took longer than ${timeoutMs} ms`)), timeoutMs);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** The start of an answer's body, on one line, for a detail. */
function excerptOf(text: string | undefined): string {
  const line = (text ?? '').replace(/\p{Cc}+/gu, ' ').trim();
  if (line === '') return '';
  return `: ${line.length > EXCERPT_CHARS ? `${line.slice(0, EXCERPT_CHARS)}…` : line}`;
}
