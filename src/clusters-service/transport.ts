/**
 * One Clusters Service call over HTTP: bearer token, per-attempt timeout, typed errors, metrics
 * event per attempt, and retries with backoff for idempotent methods (GET, DELETE) only. A POST
 * or PATCH that timed out or lost its connection is reported with `outcomeUnknown` instead.
 * Each attempt is a client span (a retry is a second span, `http.request.resend_count` 1) whose
 * W3C `traceparent` goes with the request.
 *
 * Bounded: at most `maxResponseBytes` of an answer is read (past it the call fails, naming the
 * limit), and of an answer whose body is not used (an error's, a DELETE's) at most
 * `SMALL_BODY_BYTES`; the rest is not drained, the connection is closed. Redirects are not
 * followed (an answer elsewhere would carry the bearer token's request there). A header value
 * HTTP cannot carry fails the call before anything is sent: never an unknown outcome.
 */
import { context, propagation } from '@opentelemetry/api';
import { CS_API_PREFIX } from '../domain/ids';
import type { Logger } from '../logging/logger';
import { ATTR, inSpan, SpanKind, type Span } from '../tracing';
import { retry } from '../util/backoff';
import { isValid, validate, type SchemaKind, type Validated } from '../schemas/validator';
import { parseRetryAfter } from '../util/retry-after';
import { formatBytes, readBounded } from '../util/bounded-body';
import {
  causeCode,
  ClustersServiceBadResponseError,
  ClustersServiceClientError,
  ClustersServiceConflictError,
  ClustersServiceConnectionError,
  ClustersServiceNotFoundError,
  ClustersServiceServerError,
  ClustersServiceThrottledError,
  ClustersServiceTimeoutError,
  ClustersServiceUnsendableRequestError,
  type CallContext,
  type ClustersServiceHttpError,
} from './errors';
import type { ClustersServiceCallEvent, ResolvedClustersServiceOptions } from './options';

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

export interface CallSpec {
  readonly method: HttpMethod;
  /** Path template after the API prefix, e.g. `/clusters/{id}`; names the endpoint. */
  readonly template: string;
  /** Concrete path after the API prefix, ids already encoded. */
  readonly path: string;
  readonly query?: Readonly<Record<string, string | number>>;
  readonly body?: unknown;
  /** Cancels the call (and its retries); the signal's reason is thrown. */
  readonly signal?: AbortSignal;
  /** Extra request headers (the operation's correlation ids). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Where retries are logged. @defaultValue the client's logger */
  readonly logger?: Logger;
  /** The caller ignores the answer's body (a DELETE): at most `SMALL_BODY_BYTES` of it is read. */
  readonly bodyUnused?: boolean;
  /** API prefix of the path (break-glass credentials live under clusters_mgmt). @defaultValue CS_API_PREFIX */
  readonly apiPrefix?: string;
  /**
   * The answer carries a secret (a kubeconfig): a body that is not JSON is reported without the
   * parser's error, whose message quotes the text around the fault.
   */
  readonly secretInBody?: boolean;
}

export interface Answer {
  readonly status: number;
  /** Parsed JSON body; undefined when the body was empty (204). */
  readonly json: unknown;
}

const IDEMPOTENT: ReadonlySet<HttpMethod> = new Set(['GET', 'DELETE']);

/**
 * Most read of an answer whose body matters little: an error's (an OCM error body, code and reason,
 * is a few hundred bytes; past this it is not parsed) or one the caller ignores.
 */
export const SMALL_BODY_BYTES = 8 * 1024;

/** The first header whose value HTTP cannot carry (fetch would throw before sending), if any. */
function unsendableHeader(headers: Readonly<Record<string, string>>): string | undefined {
  for (const [name, value] of Object.entries(headers)) {
    try {
      new Headers([[name, value]]);
    } catch {
      return name.toLowerCase();
    }
  }
  return undefined;
}

function httpError(call: CallContext, status: number, body: unknown, retryAfterMs: number | undefined): ClustersServiceHttpError {
  const ocm = isValid('csError', body) ? body : undefined;
  const args = [call, status, ocm?.code, ocm?.reason, retryAfterMs] as const;
  if (status === 404) return new ClustersServiceNotFoundError(...args);
  if (status === 409) return new ClustersServiceConflictError(...args);
  if (status === 429) return new ClustersServiceThrottledError(...args);
  if (status >= 500) return new ClustersServiceServerError(...args);
  return new ClustersServiceClientError(...args);
}

function isConnectionRefused(err: unknown): boolean {
  return causeCode(err) === 'ECONNREFUSED';
}

export class Transport {
  constructor(private readonly options: ResolvedClustersServiceOptions) {}

  /** Performs the call; resolves with a 2xx answer, throws a typed ClustersServiceError otherwise. */
  async call(spec: CallSpec): Promise<Answer> {
    const call: CallContext = { endpoint: `${spec.method} ${spec.template}`, path: spec.path };
    const idempotent = IDEMPOTENT.has(spec.method);
    return retry(
      (attempt) => this.attempt(spec, call, idempotent, attempt),
      (err) => {
        const retryAfterMs =
          err instanceof ClustersServiceThrottledError || err instanceof ClustersServiceServerError ? err.retryAfterMs : undefined;
        // A server that asks for a longer wait than the client's own ceiling does not get to hold the caller (a
        // pipeline worker) that long: the error, retriable and carrying the delay, goes up for the queue to retry.
        const waitsTooLong = retryAfterMs !== undefined && retryAfterMs > this.options.retry.maxDelayMs;
        return {
          retry:
            idempotent && !waitsTooLong && !spec.signal?.aborted && err instanceof Error && 'retriable' in err && err.retriable === true,
          retryAfterMs,
        };
      },
      idempotent ? this.options.retry : { ...this.options.retry, retries: 0 },
      {
        signal: spec.signal,
        onRetry: (err, attempt, delayMs) =>
          (spec.logger ?? this.options.logger)?.warn('clusters-service call failed, retrying', {
            endpoint: call.endpoint,
            path: call.path,
            attempt,
            delayMs,
            error: err instanceof Error ? err.message : String(err),
          }),
      },
    );
  }

  private emit(event: ClustersServiceCallEvent): void {
    try {
      this.options.onCall?.(event);
    } catch (err) {
      this.options.logger?.warn('clusters-service onCall hook threw', {
        endpoint: event.endpoint,
        error: err instanceof Error ? err.message : String(err),
      });
    }
  }

  private attempt(spec: CallSpec, call: CallContext, idempotent: boolean, attempt: number): Promise<Answer> {
    const url = new URL(`${this.options.baseUrl}${spec.apiPrefix ?? CS_API_PREFIX}${spec.path}`);
    for (const [k, v] of Object.entries(spec.query ?? {})) url.searchParams.set(k, String(v));
    const attributes = {
      [ATTR.httpMethod]: spec.method,
      [ATTR.url]: url.toString(),
      [ATTR.serverAddress]: url.hostname,
      [ATTR.serverPort]: Number(url.port || (url.protocol === 'https:' ? 443 : 80)),
      ...(attempt > 0 ? { [ATTR.resendCount]: attempt } : {}),
    };
    return inSpan(call.endpoint, { kind: SpanKind.CLIENT, attributes }, (span) => this.send(spec, call, idempotent, attempt, url, span));
  }

  private async send(spec: CallSpec, call: CallContext, idempotent: boolean, attempt: number, url: URL, span: Span): Promise<Answer> {
    const headers: Record<string, string> = { accept: 'application/json', ...spec.headers };
    // traceparent (and tracestate) of this attempt's span; nothing when tracing is off.
    propagation.inject(context.active(), headers);
    const token = typeof this.options.token === 'function' ? await this.options.token() : this.options.token;
    if (token) headers.authorization = `Bearer ${token}`;
    if (spec.body !== undefined) headers['content-type'] = 'application/json';

    const unsendable = unsendableHeader(headers);
    if (unsendable !== undefined) {
      span.setAttribute(ATTR.errorType, 'unsendable-header');
      throw new ClustersServiceUnsendableRequestError(call, unsendable);
    }

    const timeout = AbortSignal.timeout(this.options.requestTimeoutMs);
    const signal = spec.signal ? AbortSignal.any([spec.signal, timeout]) : timeout;
    const started = performance.now();
    const elapsed = (): number => Math.round(performance.now() - started);
    let status: number;
    let text: string;
    let cut: boolean;
    let retryAfter: string | null;
    try {
      const res = await this.options.fetch(url, {
        method: spec.method,
        headers,
        body: spec.body === undefined ? undefined : JSON.stringify(spec.body),
        signal,
        redirect: 'manual',
      });
      status = res.status;
      retryAfter = res.headers.get('retry-after');
      const small = spec.bodyUnused === true || status < 200 || status >= 300;
      ({ text, cut } = await readBounded(res, small ? SMALL_BODY_BYTES : this.options.maxResponseBytes));
      if (small) cut = false; // what was read is all that is wanted
    } catch (err) {
      if (spec.signal?.aborted) throw spec.signal.reason;
      if (timeout.aborted) {
        this.emit({ endpoint: call.endpoint, status: 'timeout', durationMs: elapsed(), attempt });
        span.setAttribute(ATTR.errorType, 'timeout');
        throw new ClustersServiceTimeoutError(call, this.options.requestTimeoutMs, !idempotent);
      }
      this.emit({ endpoint: call.endpoint, status: 'connection-error', durationMs: elapsed(), attempt });
      span.setAttribute(ATTR.errorType, 'connection-error');
      throw new ClustersServiceConnectionError(call, !idempotent && !isConnectionRefused(err), err);
    }
    this.emit({ endpoint: call.endpoint, status, durationMs: elapsed(), attempt });
    span.setAttribute(ATTR.httpStatus, status);
    if (status >= 400) span.setAttribute(ATTR.errorType, String(status));

    if (cut) {
      const limit = formatBytes(this.options.maxResponseBytes);
      throw new ClustersServiceBadResponseError(
        call,
        `HTTP ${status} body is larger than ${limit}, the most this client reads of an answer; the rest was not read`,
        { status },
      );
    }
    let json: unknown;
    if (!spec.bodyUnused && text.trim() !== '') {
      try {
        json = JSON.parse(text);
      } catch (err) {
        if (status >= 200 && status < 300)
          throw new ClustersServiceBadResponseError(call, `HTTP ${status} body is not JSON`, {
            status,
            cause: spec.secretInBody ? undefined : err,
          });
      }
    }
    if (status < 200 || status >= 300) throw httpError(call, status, json, parseRetryAfter(retryAfter));
    return { status, json };
  }
}

/** Validates an answer's body against a schema kind; a mismatch is a ClustersServiceBadResponseError. */
export function expectBody<K extends SchemaKind>(kind: K, answer: Answer, call: CallContext): Validated<K> {
  try {
    return validate(kind, answer.json);
  } catch (err) {
    throw new ClustersServiceBadResponseError(call, err instanceof Error ? err.message : String(err), {
      status: answer.status,
      cause: err,
    });
  }
}
