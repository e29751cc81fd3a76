/**
 * A loopback TCP forwarder in front of a server, that can be closed ("down": connections refused,
 * open ones reset) and opened again on the same port, while the server behind it keeps its state.
 * The chaos suite puts it in front of the Clusters Service simulator for "CS down for 60 s": the
 * simulator has no documented way to stop and restart with its clusters intact.
 */
import { createConnection, createServer, type Server, type Socket } from 'node:net';

export class TcpGate {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();

  private constructor(
    readonly port: number,
    private readonly targetPort: number,
  ) {}

  static async open(port: number, targetPort: number): Promise<TcpGate> {
    const gate = new TcpGate(port, targetPort);
    await gate.up();
    return gate;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get isUp(): boolean {
    return this.server !== undefined;
  }

  async up(): Promise<void> {
    if (this.server) return;
    const server = createServer((inbound) => this.forward(inbound));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.server = server;
  }

  /** Stops listening and resets every open connection. */
  async down(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    for (const s of this.sockets) s.resetAndDestroy();
    this.sockets.clear();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private forward(inbound: Socket): void {
    const outbound = createConnection({ host: '127.0.0.1', port: this.targetPort });
    this.sockets.add(inbound);
    this.sockets.add(outbound);
    // An error on one side resets the other; a close ends it gracefully (pipe flushes what is left).
    inbound.on('error', () => outbound.destroy());
    outbound.on('error', () => inbound.destroy());
    const closed = (other: Socket) => (): void => {
      this.sockets.delete(inbound);
      this.sockets.delete(outbound);
      other.end();
    };
    inbound.on('close', closed(outbound));
    outbound.on('close', closed(inbound));
    inbound.pipe(outbound);
    outbound.pipe(inbound);
  }
}
