import { createReadStream, promises as fsp } from 'node:fs';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import { lockDirectory, unlockDirectory } from '@opstream/stand-in-kit/dir-lock';
import { GroupCommitWriter } from '@opstream/stand-in-kit/group-commit';
import { JournalRecord, isJournalRecord } from './journal-records';

const JOURNAL = 'journal.jsonl';
const SNAPSHOT = 'snapshot.jsonl';
const LOCK = 'emulator.pid';

/**
 * Write-ahead journal with group commit. Records are JSON lines appended to `journal.jsonl`; a write
 * is acknowledged only after the group it belongs to has been written and fdatasync'ed, so every
 * acknowledged write survives `kill -9` (and power loss, as far as the disk honours fsync). While one
 * group is being synced the next one fills up, which is what makes 32 concurrent writers cheap.
 *
 * On open, `snapshot.jsonl` then `journal.jsonl` are replayed (a torn last line is ignored: its write
 * was never acknowledged); the caller then writes a fresh snapshot and the journal starts empty.
 */
export class Journal {
  private readonly writer: GroupCommitWriter;

  private constructor(
    readonly dir: string,
    private fd: number,
  ) {
    this.writer = new GroupCommitWriter(fd);
  }

  /** Opens (creating) the directory and replays what it holds through `apply`. */
  static async open(dir: string, apply: (record: JournalRecord) => void): Promise<Journal> {
    await fsp.mkdir(dir, { recursive: true });
    lockDirectory(dir, LOCK, 'emulator');
    await replayFile(path.join(dir, SNAPSHOT), apply);
    await replayFile(path.join(dir, JOURNAL), apply);
    dropTornTail(path.join(dir, JOURNAL));
    const fd = fs.openSync(path.join(dir, JOURNAL), 'a');
    return new Journal(dir, fd);
  }

  /** Resolves once the record is durable; `onDurable` runs just before, in commit order. */
  append(record: JournalRecord, onDurable?: () => void): Promise<void> {
    return this.writer.append(JSON.stringify(record) + '\n', onDurable);
  }

  /**
   * Replaces snapshot + journal with `records` (the current state): written to a temporary file, synced,
   * renamed over the snapshot, then the journal is truncated. A crash at any point leaves a state
   * from which replay rebuilds the same documents.
   */
  async compact(records: Iterable<JournalRecord>): Promise<void> {
    await this.drain();
    const tmp = path.join(this.dir, SNAPSHOT + '.tmp');
    const fd = fs.openSync(tmp, 'w');
    try {
      let chunk: string[] = [];
      let size = 0;
      for (const r of records) {
        const line = JSON.stringify(r) + '\n';
        chunk.push(line);
        size += line.length;
        if (size > 1 << 20) {
          fs.writeSync(fd, chunk.join(''));
          chunk = [];
          size = 0;
        }
      }
      if (chunk.length) fs.writeSync(fd, chunk.join(''));
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, path.join(this.dir, SNAPSHOT));
    syncDir(this.dir);
    fs.ftruncateSync(this.fd, 0);
    fs.fsyncSync(this.fd);
  }

  /** Waits for everything appended so far to be durable. */
  drain(): Promise<void> {
    return this.writer.drain();
  }

  async close(): Promise<void> {
    await this.writer.close();
    unlockDirectory(this.dir, LOCK);
  }
}

/** Cuts a last line that was never completed (no newline), so new records start on a line of their own. */
function dropTornTail(file: string): void {
  if (!fs.existsSync(file)) return;
  const size = fs.statSync(file).size;
  if (size === 0) return;
  const fd = fs.openSync(file, 'r+');
  try {
    const window = Buffer.alloc(Math.min(size, 1 << 22));
    fs.readSync(fd, window, 0, window.length, size - window.length);
    if (window[window.length - 1] === 0x0a) return;
    const lastNewline = window.lastIndexOf(0x0a);
    fs.ftruncateSync(fd, lastNewline < 0 ? size - window.length : size - window.length + lastNewline + 1);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

function syncDir(dir: string): void {
  try {
    const fd = fs.openSync(dir, 'r');
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    // Some file systems refuse to fsync a directory; the rename is still atomic.
  }
}

async function replayFile(file: string, apply: (record: JournalRecord) => void): Promise<void> {
  if (!fs.existsSync(file)) return;
  const lines = createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity });
  let torn: string | undefined;
  for await (const line of lines) {
    if (torn !== undefined) throw new Error(`journal ${file} is corrupt: an unreadable line is followed by more records`);
    if (!line.trim()) continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      torn = line; // a write cut short by a crash: never acknowledged, so dropped
      continue;
    }
    if (!isJournalRecord(parsed)) throw new Error(`journal ${file} holds an unknown record: ${line.slice(0, 200)}`);
    apply(parsed);
  }
}
