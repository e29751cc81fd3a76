import { Observable, Subject, config, filter } from 'rxjs';

/** One event of a named stream, as a tap delivers it. */
export interface TapEvent<T = unknown> {
  stream: string;
  at: string;
  data: T;
}

/**
 * Named, tappable streams. The pipeline publishes into them; anyone (CLI tap, SSE, tests) can
 * subscribe without changing what the pipeline does: publishing is fire-and-forget, a subscriber
 * that throws is cut off instead of breaking the publisher, and slow consumers must buffer or drop
 * on their own side (the SSE server does).
 */
export class TapRegistry {
  private readonly subjects = new Map<string, Subject<TapEvent>>();
  private readonly counts = new Map<string, number>();

  constructor(readonly names: readonly string[]) {
    for (const n of names) {
      this.subjects.set(n, new Subject<TapEvent>());
      this.counts.set(n, 0);
    }
  }

  publish<T>(stream: string, data: T): void {
    const subject = this.subjects.get(stream);
    if (!subject) throw new Error(`unknown stream "${stream}" (known: ${this.names.join(', ')})`);
    this.counts.set(stream, (this.counts.get(stream) ?? 0) + 1);
    if (!subject.observed) return;
    subject.next({ stream, at: new Date().toISOString(), data });
  }

  /** A hot view of one stream (or all with "*"), optionally filtered. */
  tap<T = unknown>(stream: string, predicate?: (e: TapEvent<T>) => boolean): Observable<TapEvent<T>> {
    if (stream !== '*' && !this.subjects.has(stream)) {
      throw new Error(`unknown stream "${stream}" (known: ${this.names.join(', ')})`);
    }
    const sources = stream === '*' ? [...this.subjects.values()] : [this.subjects.get(stream) as Subject<TapEvent>];
    return new Observable<TapEvent<T>>((subscriber) => {
      const subs = sources.map((s) =>
        s.pipe(filter((e) => !predicate || safe(() => predicate(e as TapEvent<T>)))).subscribe((e) => subscriber.next(e as TapEvent<T>)),
      );
      return () => subs.forEach((s) => s.unsubscribe());
    });
  }

  /** Whether anyone taps the stream now. */
  isTapped(stream: string): boolean {
    return this.subjects.get(stream)?.observed ?? false;
  }

  /** Events published per stream since start (tapped or not). */
  published(): Record<string, number> {
    return Object.fromEntries(this.counts);
  }

  /** At stop: every stream completes for its subscribers. */
  close(): void {
    for (const s of this.subjects.values()) s.complete();
  }
}

function safe(fn: () => boolean): boolean {
  try {
    return fn();
  } catch {
    return false;
  }
}

/**
 * RxJS rethrows a subscriber's error on a timer, which would crash the process: a faulty tap
 * consumer must never take the pipeline down. Installed once by the composition root.
 */
export function guardUnhandledRxjsErrors(report: (err: unknown) => void): void {
  config.onUnhandledError = report;
}
