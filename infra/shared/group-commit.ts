import * as fs from 'node:fs';

/**
 * Appends lines to an open file with group commit: while one group is written and fdatasync'ed the
 * next fills up, and each append resolves only once its group is durable (so an acknowledged write
 * survives `kill -9`). The first write error fails every waiting and later append: a journal that
 * lost a write must not acknowledge more. Shared by the stand-ins' `--data-dir` journals.
 */
export class GroupCommitWriter {
  private pending: string[] = [];
  private waiters: { resolve: () => void; reject: (err: Error) => void; onDurable?: () => void }[] = [];
  private flushing = false;
  private failed: Error | undefined;
  private closed = false;

  constructor(readonly fd: number) {}

  /** Resolves once `line` is durable; `onDurable` runs just before, in commit order. */
  append(line: string, onDurable?: () => void): Promise<void> {
    if (this.failed) return Promise.reject(this.failed);
    if (this.closed) return Promise.reject(new Error('journal is closed'));
    this.pending.push(line);
    const done = new Promise<void>((resolve, reject) => this.waiters.push({ resolve, reject, onDurable }));
    if (!this.flushing) void this.flushLoop();
    return done;
  }

  /** Waits for everything appended so far to be durable (or failed). */
  async drain(): Promise<void> {
    while (this.flushing || this.pending.length) await new Promise<void>((resolve) => setImmediate(resolve));
  }

  /** Drains, then refuses further appends and closes the file. */
  async close(): Promise<void> {
    await this.drain();
    this.closed = true;
    fs.closeSync(this.fd);
  }

  private async flushLoop(): Promise<void> {
    this.flushing = true;
    try {
      while (this.pending.length) {
        const lines = this.pending;
        const waiters = this.waiters;
        this.pending = [];
        this.waiters = [];
        try {
          await writeAll(this.fd, Buffer.from(lines.join(''), 'utf8'));
          await new Promise<void>((resolve, reject) => fs.fdatasync(this.fd, (err) => (err ? reject(err) : resolve())));
        } catch (err) {
          this.failed = err instanceof Error ? err : new Error(String(err));
          for (const w of [...waiters, ...this.waiters]) w.reject(this.failed);
          this.waiters = [];
          this.pending = [];
          return;
        }
        for (const w of waiters) {
          w.onDurable?.();
          w.resolve();
        }
      }
    } finally {
      this.flushing = false;
    }
  }
}

function writeAll(fd: number, buf: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    const step = (offset: number): void => {
      fs.write(fd, buf, offset, buf.length - offset, null, (err, written) => {
        if (err) return reject(err);
        if (offset + written < buf.length) step(offset + written);
        else resolve();
      });
    };
    step(0);
  });
}
