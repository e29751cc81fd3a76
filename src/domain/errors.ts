/**
 * The base of every typed error opstream raises, and the domain layer's own errors.
 * Each layer (schemas, cosmos, locks, clusters-service) has one errors module extending this base;
 * callers branch on `retriable` and on the predicates, never on messages.
 */

/** Identifiers that say what an error was about (operation, subscription, document, endpoint). */
export type ErrorContext = Readonly<Record<string, string | number | boolean | undefined>>;

export abstract class OpstreamError extends Error {
  /** True when the same call may succeed if tried again later (throttling, 5xx, timeouts, contention). */
  abstract readonly retriable: boolean;
  readonly context: ErrorContext;

  constructor(message: string, options: { cause?: unknown; context?: ErrorContext } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.context = options.context ?? {};
  }
}

/** True for any opstream error that says a retry may help; unknown errors are not retriable. */
export function isRetriable(err: unknown): boolean {
  return err instanceof OpstreamError && err.retriable;
}

/**
 * A failure no retry can fix (a document in a state no processor can act on, an id that cannot be
 * parsed): the operation is dead-lettered at once instead of being retried `maxHandlerAttempts` times.
 */
export class TerminalError extends OpstreamError {
  readonly retriable = false;
  readonly terminal = true;
}

/** True for errors that must not be retried (see `TerminalError`). */
export function isTerminalError(err: unknown): boolean {
  return err instanceof TerminalError || err instanceof InvalidIdError;
}

/** An ARM resource id or Clusters Service href that does not have the expected shape. */
export class InvalidIdError extends OpstreamError {
  readonly retriable = false;
  constructor(
    readonly kind: 'arm-resource-id' | 'cs-href',
    readonly value: string,
    reason: string,
  ) {
    super(`invalid ${kind === 'arm-resource-id' ? 'ARM resource id' : 'Clusters Service href'} "${value}": ${reason}`, {
      context: { kind, value },
    });
  }
}

export function isInvalidIdError(err: unknown): err is InvalidIdError {
  return err instanceof InvalidIdError;
}

/**
 * An Operation whose resource type and request no processor of this build handles: set aside at once
 * (dead letter reason `unsupported`), naming both and what is supported, never left to its deadline.
 */
export class UnsupportedOperationError extends OpstreamError {
  readonly retriable = false;
  constructor(
    readonly resourceType: string,
    readonly request: string,
    supported: readonly string[],
  ) {
    super(`no processor handles ${request} on ${resourceType}; this build handles: ${supported.join(', ')}`, {
      context: { resourceType, request },
    });
  }
}
