/**
 * Errors of the Cosmos layer (bootstrap, repositories). SDK failures are classified by HTTP status
 * with `cosmosStatus`, never by message; what escapes a repository is one of these classes.
 */
import { OpstreamError, type ErrorContext } from '../domain/errors';
import type { ValidationError } from '../schemas/errors';

/** The HTTP status of an `@azure/cosmos` error (`code`), or undefined for anything else. */
export function cosmosStatus(err: unknown): number | undefined {
  if (err === null || typeof err !== 'object') return undefined;
  const code = (err as { code?: unknown }).code;
  return typeof code === 'number' ? code : undefined;
}

/** Server-requested wait of a throttled/busy Cosmos answer. */
export function cosmosRetryAfterMs(err: unknown): number | undefined {
  if (err === null || typeof err !== 'object') return undefined;
  const value = (err as { retryAfterInMs?: unknown }).retryAfterInMs;
  return typeof value === 'number' ? value : undefined;
}

/** Statuses that mean "try again later": timeout, throttled, retry-with, server trouble. */
const RETRIABLE_STATUSES = new Set([408, 429, 449, 500, 502, 503, 504]);

/** True for Cosmos failures a retry may fix (listed statuses, and network failures without a status). */
export function isRetriableCosmosFailure(err: unknown): boolean {
  const status = cosmosStatus(err);
  return status === undefined ? !(err instanceof OpstreamError) : RETRIABLE_STATUSES.has(status);
}

/** A Cosmos call failed for a reason the repository does not handle itself. */
export class CosmosRequestError extends OpstreamError {
  readonly retriable: boolean;
  readonly status: number | undefined;
  readonly retryAfterMs: number | undefined;
  constructor(operation: string, cause: unknown, context: ErrorContext = {}) {
    const status = cosmosStatus(cause);
    const detail =
      cause instanceof Error || (cause && typeof cause === 'object' && 'message' in cause)
        ? String((cause as { message: unknown }).message)
        : String(cause);
    super(`Cosmos ${operation} failed${status === undefined ? '' : ` (HTTP ${status})`}: ${detail.split('\n')[0]}`, {
      cause,
      context: { ...context, status },
    });
    this.status = status;
    this.retriable = isRetriableCosmosFailure(cause);
    this.retryAfterMs = cosmosRetryAfterMs(cause);
  }
}

/**
 * A stored document does not match its schema. Not retriable: dead-letter `document` with
 * `validation.field` as the reason. The message names container, document and field.
 */
export class InvalidDocumentError extends OpstreamError {
  readonly retriable = false;
  constructor(
    readonly container: string,
    readonly validation: ValidationError,
    /** The document as read (raw JSON), for dead-lettering. */
    readonly document: unknown,
    readonly partitionKey?: string,
  ) {
    super(`${container}: ${validation.message}`, {
      cause: validation,
      context: { container, documentId: validation.documentId, field: validation.field, partitionKey },
    });
  }

  get documentId(): string | undefined {
    return this.validation.documentId;
  }

  get field(): string {
    return this.validation.field;
  }
}

/** Read-modify-write kept losing the race (412 on every attempt). Retriable later. */
export class ConcurrentUpdateError extends OpstreamError {
  readonly retriable = true;
  constructor(container: string, partitionKey: string, id: string, attempts: number) {
    super(`${container} document "${id}" changed under every one of ${attempts} update attempts (HTTP 412)`, {
      context: { container, partitionKey, documentId: id, attempts },
    });
  }
}

/** A create found the id taken (HTTP 409). */
export class DocumentExistsError extends OpstreamError {
  readonly retriable = false;
  constructor(container: string, partitionKey: string, id: string, cause: unknown) {
    super(`${container} document "${id}" already exists`, { cause, context: { container, partitionKey, documentId: id } });
  }
}

/** The database or a container is missing or misconfigured; the message says how to fix it. */
export class ContainerSetupError extends OpstreamError {
  readonly retriable = false;
  readonly exitCode = 78; // EX_CONFIG
  /** Only what is missing (the database, containers), which `cosmos.createContainers` creates; false when something exists wrong. */
  readonly missingOnly: boolean;

  constructor(message: string, options: { missingOnly?: boolean } = {}) {
    super(message);
    this.missingOnly = options.missingOnly ?? false;
  }
}

/** The Subscription document has no tenant, which the CS search needs. */
export class MissingTenantError extends OpstreamError {
  readonly retriable = false;
  constructor(subscriptionId: string, reason: 'no-subscription' | 'no-tenant') {
    super(
      reason === 'no-subscription'
        ? `subscription ${subscriptionId} has no Subscriptions document, so its tenant is unknown`
        : `subscription ${subscriptionId} has no properties.tenantId`,
      { context: { subscriptionId, reason } },
    );
  }
}

export function isInvalidDocumentError(err: unknown): err is InvalidDocumentError {
  return err instanceof InvalidDocumentError;
}
