/**
 * ARM's async-notification endpoint for a chaos run: the frontend's notification receiver
 * (infra/frontend/notification-receiver.ts) on a fixed loopback port, which can be stopped ("ARM
 * down": connections refused) and started again on the same port. What every incarnation
 * received is kept, so duplicates and missing notifications are counted over the whole run.
 */
import { startNotificationReceiver, type NotificationReceiver, type ReceivedNotification } from '@opstream/frontend-simulator';

export class ArmEndpoint {
  private current: NotificationReceiver | undefined;
  private readonly earlier: ReceivedNotification[] = [];

  private constructor(readonly port: number) {}

  static async start(port: number): Promise<ArmEndpoint> {
    const arm = new ArmEndpoint(port);
    await arm.up();
    return arm;
  }

  /** Base URL written into every Operation's notificationUri. */
  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get isUp(): boolean {
    return this.current !== undefined;
  }

  async up(): Promise<void> {
    if (this.current) return;
    this.current = await startNotificationReceiver({ port: this.port, host: '127.0.0.1' });
  }

  async down(): Promise<void> {
    const receiver = this.current;
    if (!receiver) return;
    this.current = undefined;
    this.earlier.push(...receiver.received);
    await receiver.close();
  }

  /** Every notification received so far, by every incarnation. */
  received(): readonly ReceivedNotification[] {
    return this.current ? [...this.earlier, ...this.current.received] : this.earlier;
  }

  /** Notifications per operation document id. */
  countsByOperation(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const n of this.received()) counts.set(n.operation, (counts.get(n.operation) ?? 0) + 1);
    return counts;
  }

  /** When the first notification of each operation arrived. */
  firstArrivals(): Map<string, number> {
    const out = new Map<string, number>();
    for (const n of this.received()) if (!out.has(n.operation)) out.set(n.operation, n.at);
    return out;
  }

  /** Status of the first notification of each operation. */
  statusByOperation(): Map<string, string> {
    const out = new Map<string, string>();
    for (const n of this.received()) {
      if (out.has(n.operation)) continue;
      const status = (n.body as { status?: unknown } | null)?.status;
      out.set(n.operation, typeof status === 'string' ? status : '?');
    }
    return out;
  }

  async close(): Promise<void> {
    await this.down();
  }
}
