/**
 * When each operation first came out of the system's change feed: the harness follows opstream's
 * `changes` tap (`/streams/changes`, server-sent events) and keeps the first arrival per operation
 * id. Pickup = that arrival − the frontend's acknowledged write: the change-feed part of the
 * reaction, without the handling that precedes the first Clusters Service call. Loopback SSE adds
 * well under a millisecond.
 */
export class ChangeTap {
  private readonly firstSeen = new Map<string, number>();
  private readonly controller = new AbortController();
  private readonly done: Promise<void>;

  private constructor(response: Response) {
    this.done = this.read(response).catch(() => undefined);
  }

  /** Opens the tap; resolves once the server answered (events from then on are seen). */
  static async open(opsUrl: string): Promise<ChangeTap> {
    const controller = new AbortController();
    const response = await fetch(`${opsUrl}/streams/changes`, { signal: controller.signal, headers: { accept: 'text/event-stream' } });
    if (!response.ok || !response.body) throw new Error(`tap ${opsUrl}/streams/changes answered ${response.status}`);
    const tap = new ChangeTap(response);
    tap.controller.signal.addEventListener('abort', () => controller.abort());
    return tap;
  }

  /** Wall-clock ms the operation (document id) was first seen, if it was. */
  seenAt(operationId: string): number | undefined {
    return this.firstSeen.get(operationId);
  }

  async close(): Promise<void> {
    this.controller.abort();
    await this.done;
  }

  private async read(response: Response): Promise<void> {
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      const now = Date.now();
      buffer += decoder.decode(chunk, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const event = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = event.split('\n').find((l) => l.startsWith('data: '));
        if (!data) continue;
        try {
          // A tap event: { stream, at, data: { leaseToken, operationId, … } }.
          const id = (JSON.parse(data.slice(6)) as { data?: { operationId?: unknown } }).data?.operationId;
          if (typeof id === 'string' && !this.firstSeen.has(id)) this.firstSeen.set(id, now);
        } catch {
          // not an event of ours (a comment, a keep-alive)
        }
      }
    }
  }
}
