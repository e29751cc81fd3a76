import { randomUUID } from 'node:crypto';

/** AMQP error conditions the service uses, with the status code its management/CBS replies carry. */
export const CONDITION = {
  notFound: { condition: 'amqp:not-found', status: 404 },
  unauthorized: { condition: 'amqp:unauthorized-access', status: 401 },
  lockLost: { condition: 'com.microsoft:message-lock-lost', status: 410 },
  sessionLockLost: { condition: 'com.microsoft:session-lock-lost', status: 410 },
  sessionCannotBeLocked: { condition: 'com.microsoft:session-cannot-be-locked', status: 410 },
  serverBusy: { condition: 'com.microsoft:server-busy', status: 503 },
  timeout: { condition: 'com.microsoft:timeout', status: 408 },
  argument: { condition: 'com.microsoft:argument-error', status: 400 },
  argumentOutOfRange: { condition: 'com.microsoft:argument-out-of-range', status: 400 },
  notAllowed: { condition: 'amqp:not-allowed', status: 400 },
  notImplemented: { condition: 'amqp:not-implemented', status: 501 },
  messageNotFound: { condition: 'com.microsoft:message-not-found', status: 404 },
  decodeError: { condition: 'amqp:decode-error', status: 400 },
  internal: { condition: 'amqp:internal-error', status: 500 },
  sizeExceeded: { condition: 'amqp:link:message-size-exceeded', status: 403 },
  entityDisabled: { condition: 'com.microsoft:entity-disabled', status: 400 },
  alreadyExists: { condition: 'com.microsoft:entity-already-exists', status: 409 },
} as const;

export type ConditionName = keyof typeof CONDITION;

export class BrokerError extends Error {
  readonly condition: string;
  readonly status: number;
  constructor(
    readonly kind: ConditionName,
    message: string,
  ) {
    super(message);
    this.condition = CONDITION[kind].condition;
    this.status = CONDITION[kind].status;
  }
}

/** The service appends a tracking id and a timestamp to every error description. */
export function describe(message: string): string {
  return `${message} TrackingId:${randomUUID()}, SystemTracker:opstream-service-bus-emulator, Timestamp:${new Date().toISOString()}`;
}

export function toAmqpError(err: unknown): { condition: string; description: string } {
  if (err instanceof BrokerError) return { condition: err.condition, description: describe(err.message) };
  return { condition: CONDITION.internal.condition, description: describe(err instanceof Error ? err.message : String(err)) };
}
