import { ServerResponse } from 'http';
import { Subscription, Observable } from 'rxjs';

/**
 * One server-sent-events client of a tap. Writes never wait: when the socket's buffer is over
 * `maxBufferedBytes` the event is dropped (and counted); a client that stays behind for
 * `maxDropped` events in a row is disconnected. So a client that never reads cannot slow the pipeline.
 */
export interface SseClientOptions {
  /** @defaultValue 256 KiB */
  maxBufferedBytes?: number;
  /** @defaultValue 1000 */
  maxDropped?: number;
  /** Comment line sent this often to keep proxies from closing the stream. @defaultValue 15000 */
  heartbeatMs?: number;
  onDrop?: () => void;
}

export function serveSse<T>(res: ServerResponse, events: Observable<T>, eventName: (e: T) => string, options: SseClientOptions = {}): void {
  const maxBuffered = options.maxBufferedBytes ?? 256 * 1024;
  const maxDropped = options.maxDropped ?? 1000;
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  res.write(': connected\n\n');
  let droppedInARow = 0;
  const subscription = new Subscription();
  const close = (): void => {
    subscription.unsubscribe();
    clearInterval(heartbeat);
    if (!res.writableEnded) res.end();
  };
  const heartbeat = setInterval(() => {
    if (res.writableLength < maxBuffered) res.write(': keep-alive\n\n');
  }, options.heartbeatMs ?? 15_000);
  heartbeat.unref();
  res.on('close', close);
  subscription.add(
    events.subscribe({
      next: (e) => {
        if (res.writableLength > maxBuffered) {
          options.onDrop?.();
          if (++droppedInARow >= maxDropped) {
            res.destroy();
            close();
          }
          return;
        }
        droppedInARow = 0;
        res.write(`event: ${eventName(e)}\ndata: ${JSON.stringify(e)}\n\n`);
      },
      error: () => close(),
      complete: () => close(),
    }),
  );
}
