import { ServerResponse } from 'http';
import { Subscription, Observable } from 'rxjs';
import type { Logger } from '../logging/logger';
import { LogThrottle, suppressedNote } from '../util/log-throttle';

/**
 * One server-sent-events client of a tap. Writes never wait, and what a client holds in this process is
 * bounded in bytes whatever the size of an event: an event is written only when it fits, with what the
 * socket still holds, within `maxBufferedBytes`; otherwise it is dropped and counted. The client sees
 * where events went missing: before the next event that fits comes `event: gap` with
 * `{"dropped": N}`, and the instance logs the gap. A client that stays behind for `maxDropped` events in
 * a row is disconnected. So a client that never reads can neither slow the pipeline nor grow its memory
 * past the bound (the kernel's socket buffers come on top: they are bounded by the system's TCP limits).
 */
export interface SseClientOptions {
  /** @defaultValue 256 KiB */
  maxBufferedBytes?: number;
  /** @defaultValue 1000 */
  maxDropped?: number;
  /** Comment line sent this often to keep proxies from closing the stream. @defaultValue 15000 */
  heartbeatMs?: number;
  onDrop?: () => void;
  /** Where gaps are logged (with the stream's name). */
  logger?: Logger;
  stream?: string;
}

/** An event as it goes on the wire, made once however many clients it goes to. */
interface Framed {
  text: string;
  bytes: number;
}

const framedEvents = new WeakMap<object, Framed>();
/** A client's gaps are logged at most this often. */
const GAP_LOG_INTERVAL_MS = 30_000;

function framed<T>(e: T, eventName: (e: T) => string): Framed {
  const key = typeof e === 'object' && e !== null ? e : undefined;
  const known = key ? framedEvents.get(key) : undefined;
  if (known) return known;
  const text = `event: ${eventName(e)}\ndata: ${JSON.stringify(e)}\n\n`;
  const made = { text, bytes: Buffer.byteLength(text) };
  if (key) framedEvents.set(key, made);
  return made;
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
  let gap = 0;
  const gapLog = new LogThrottle(GAP_LOG_INTERVAL_MS, Date.now);
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
        const event = framed(e, eventName);
        const gapLine = gap > 0 ? `event: gap\ndata: {"dropped":${gap}}\n\n` : '';
        if (res.writableLength + gapLine.length + event.bytes > maxBuffered) {
          gap++;
          options.onDrop?.();
          if (++droppedInARow >= maxDropped) {
            options.logger?.warn('tap client disconnected: it read nothing while events kept coming', {
              stream: options.stream,
              dropped: gap,
            });
            res.destroy();
            close();
          }
          return;
        }
        if (gap > 0) {
          const suppressed = gapLog.take();
          if (suppressed !== undefined)
            options.logger?.warn(
              `tap client missed events: it reads slower than they come (it is told with event "gap")${suppressedNote(suppressed)}`,
              { stream: options.stream, dropped: gap, suppressed },
            );
          res.write(gapLine);
          gap = 0;
        }
        droppedInARow = 0;
        res.write(event.text);
      },
      error: () => close(),
      complete: () => close(),
    }),
  );
}
