/**
 * The wake-up hint a frontend that opts in sends right after it wrote an Operation
 * (`schemas/operation-hint.schema.json`), through the real Service Bus SDK. Best effort, as a
 * frontend would do it: a failed send is counted and never fails the ARM request, since the
 * backend's idle poll finds the Operation anyway.
 */
import { ServiceBusClient, type ServiceBusSender } from '@azure/service-bus';

export interface HintSenderOptions {
  connectionString: string;
  /** Queue or topic. @defaultValue "operation-hints" */
  entity?: string;
  /** One send's deadline, SDK retries included. @defaultValue 2000 */
  sendTimeoutMs?: number;
}

export interface HintCounts {
  readonly sent: number;
  readonly failed: number;
  readonly lastError?: string;
}

export const OPERATION_HINTS_ENTITY = 'operation-hints';

export class HintSender {
  private readonly client: ServiceBusClient;
  private readonly sender: ServiceBusSender;
  private sent = 0;
  private failed = 0;
  private lastError?: string;

  constructor(options: HintSenderOptions) {
    // Few, quick retries: a hint that arrives late is worth little more than none.
    this.client = new ServiceBusClient(options.connectionString, {
      retryOptions: { maxRetries: 1, timeoutInMs: options.sendTimeoutMs ?? 2000, retryDelayInMs: 50, maxRetryDelayInMs: 200 },
    });
    this.sender = this.client.createSender(options.entity ?? OPERATION_HINTS_ENTITY);
  }

  /**
   * Opens the connection and the send link now (the SDK opens them on first use, which makes the
   * first hint of a fresh sender slow, as a long-running frontend's never is). Failures are left
   * to the first send.
   */
  async open(): Promise<void> {
    await this.sender.createMessageBatch().catch(() => undefined);
  }

  /** Sends `{partitionKey, operationId}`; resolves whether Service Bus took it. */
  async send(partitionKey: string, operationId: string): Promise<boolean> {
    try {
      await this.sender.sendMessages({ body: { partitionKey, operationId }, contentType: 'application/json' });
      this.sent++;
      return true;
    } catch (err) {
      this.failed++;
      this.lastError = (err as Error).message;
      return false;
    }
  }

  counts(): HintCounts {
    return { sent: this.sent, failed: this.failed, ...(this.lastError ? { lastError: this.lastError } : {}) };
  }

  async close(): Promise<void> {
    await this.sender.close().catch(() => undefined);
    await this.client.close().catch(() => undefined);
  }
}
