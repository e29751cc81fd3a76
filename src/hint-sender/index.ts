/**
 * The frontend's side of opstream's wake-up hints (README.md): right after an Operation write is
 * acknowledged, one small Service Bus message names its partition key, and the opstream instance
 * that owns that feed range reads it at once instead of at its next idle poll. Best effort by
 * design: the change feed stays the truth, so a send that fails costs only the idle poll
 * interval, and it never fails the caller's ARM request.
 */
import { ServiceBusClient, type ServiceBusSender, type TokenCredential } from '@azure/service-bus';

/** Where the hints go: a connection string (local, key auth) or a namespace and an Entra ID credential. */
export type HintSenderAccess = { connectionString: string } | { fullyQualifiedNamespace: string; credential: TokenCredential };

/** The queue (or topic) opstream reads hints from unless `serviceBus.hintsEntity` says otherwise. */
export const OPERATION_HINTS_ENTITY = 'operation-hints';

export interface HintSenderOptions {
  /** Queue or topic; opstream's `serviceBus.hintsEntity`. @defaultValue "operation-hints" */
  entity?: string;
  /** One send's deadline, the SDK's retries included: a hint that arrives late is worth little. @defaultValue 2000 */
  sendTimeoutMs?: number;
  /** How long Service Bus keeps a hint nobody received: an old hint wakes a range for nothing. @defaultValue 60000 */
  timeToLiveMs?: number;
}

/** The hint of one Operation write (`schemas/operation-hint.schema.json`). */
export interface OperationHint {
  /** The Operation document's partition key, exactly as written (the lower-cased subscription id). */
  partitionKey: string;
  /** The Operation document's `id`: for opstream's logs and traces. */
  operationId: string;
}

/** What a sender did since it was made; `lastError` is the message of the last failed send. */
export interface HintCounts {
  readonly sent: number;
  readonly failed: number;
  readonly lastError?: string;
}

/** One long-lived sender per frontend process: its connection and link stay open between hints. */
export class OperationHintSender {
  private readonly client: ServiceBusClient;
  private readonly sender: ServiceBusSender;
  private readonly timeToLiveMs: number;
  private sent = 0;
  private failed = 0;
  private lastError?: string;

  constructor(access: HintSenderAccess, options: HintSenderOptions = {}) {
    // Few, quick retries: a hint that arrives late is worth little more than none.
    const clientOptions = {
      retryOptions: { maxRetries: 1, timeoutInMs: options.sendTimeoutMs ?? 2000, retryDelayInMs: 50, maxRetryDelayInMs: 200 },
    };
    this.client =
      'connectionString' in access
        ? new ServiceBusClient(access.connectionString, clientOptions)
        : new ServiceBusClient(access.fullyQualifiedNamespace, access.credential, clientOptions);
    this.sender = this.client.createSender(options.entity ?? OPERATION_HINTS_ENTITY);
    this.timeToLiveMs = options.timeToLiveMs ?? 60_000;
  }

  /**
   * Opens the connection and the send link now, so the first hint is as quick as the rest (the
   * SDK would open them on the first send). A failure here is left to the first send to report.
   */
  async open(): Promise<void> {
    await this.sender.createMessageBatch().catch(() => undefined);
  }

  /**
   * Sends the hint of an Operation write whose write was acknowledged. Resolves whether Service Bus
   * took it; never rejects (a failure is counted in `counts()`). Throws only on a hint without a
   * partition key or id, which is the caller's bug.
   */
  async send(hint: OperationHint): Promise<boolean> {
    if (
      typeof hint?.partitionKey !== 'string' ||
      hint.partitionKey === '' ||
      typeof hint.operationId !== 'string' ||
      hint.operationId === ''
    ) {
      throw new TypeError("an operation hint needs the Operation's partitionKey and operationId, both non-empty strings");
    }
    try {
      await this.sender.sendMessages({
        body: { partitionKey: hint.partitionKey, operationId: hint.operationId },
        contentType: 'application/json',
        timeToLive: this.timeToLiveMs,
      });
      this.sent++;
      return true;
    } catch (err) {
      this.failed++;
      this.lastError = err instanceof Error ? err.message : String(err);
      return false;
    }
  }

  counts(): HintCounts {
    return { sent: this.sent, failed: this.failed, ...(this.lastError ? { lastError: this.lastError } : {}) };
  }

  /** Closes the link and the connection; a send after this fails (and is counted). */
  async close(): Promise<void> {
    await this.sender.close().catch(() => undefined);
    await this.client.close().catch(() => undefined);
  }
}
