import * as fs from 'node:fs';
import * as path from 'node:path';
import { lockDirectory, unlockDirectory } from '@opstream/stand-in-kit/dir-lock';
import { GroupCommitWriter } from '@opstream/stand-in-kit/group-commit';
import { StoredMessage } from './message';

/** One line of the journal (short keys: o = operation, e = entity, s = sequence number). */
export type JournalRecord =
  | { o: 'put'; e: string; m: StoredMessage }
  | { o: 'del'; e: string; s: number }
  | { o: 'upd'; e: string; s: number; dc: number; st: StoredMessage['st'] }
  | { o: 'ses'; e: string; id: string; v: string | null }
  | { o: 'seq'; e: string; n: number }
  | { o: 'dup'; e: string; id: string; at: number }
  /** a subscription's whole rule list after a rule was added or removed, each rule in Config.json's shape */
  | { o: 'rules'; e: string; r: unknown[] }
  /** the whole namespace in Config.json's shape after the administration API created, changed or deleted an entity (e = '') */
  | { o: 'ns'; e: string; n: Record<string, unknown> };

const JOURNAL = 'journal.jsonl';
const SNAPSHOT = 'snapshot.jsonl';
const LOCK = 'service-bus.pid';

function isRecord(v: unknown): v is JournalRecord {
  return (
    typeof v === 'object' && v !== null && typeof (v as { o?: unknown }).o === 'string' && typeof (v as { e?: unknown }).e === 'string'
  );
}

/**
 * `--data-dir` journal: JSON lines appended with group commit (one fdatasync per group). A send is
 * acknowledged only after its record is durable, so an acknowledged send survives `kill -9`. Settlements
 * and state changes are journaled in the same order but not waited for (a crash may redeliver a message
 * that was completed just before it: at-least-once, as with the service after a failover).
 * On open the snapshot then the journal are replayed (a torn last line is dropped), a fresh snapshot is
 * written and the journal starts empty.
 */
export class Journal {
  private readonly writer: GroupCommitWriter;

  private constructor(
    readonly dir: string,
    private fd: number,
  ) {
    this.writer = new GroupCommitWriter(fd);
  }

  static open(dir: string, apply: (r: JournalRecord) => void): Journal {
    fs.mkdirSync(dir, { recursive: true });
    lockDirectory(dir, LOCK, 'Service Bus emulator');
    for (const file of [SNAPSHOT, JOURNAL]) replay(path.join(dir, file), apply);
    const fd = fs.openSync(path.join(dir, JOURNAL), 'a');
    return new Journal(dir, fd);
  }

  /** Appends; the promise resolves once the record is durable. */
  append(record: JournalRecord): Promise<void> {
    return this.writer.append(JSON.stringify(record) + '\n');
  }

  /** Appends without waiting (ordering is kept). */
  note(record: JournalRecord): void {
    this.append(record).catch(() => undefined);
  }

  /** Replaces snapshot and journal with the current state. */
  compact(records: Iterable<JournalRecord>): void {
    const tmp = path.join(this.dir, SNAPSHOT + '.tmp');
    const fd = fs.openSync(tmp, 'w');
    try {
      let chunk: string[] = [];
      for (const r of records) {
        chunk.push(JSON.stringify(r) + '\n');
        if (chunk.length >= 1000) {
          fs.writeSync(fd, chunk.join(''));
          chunk = [];
        }
      }
      if (chunk.length) fs.writeSync(fd, chunk.join(''));
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, path.join(this.dir, SNAPSHOT));
    fs.ftruncateSync(this.fd, 0);
    fs.fsyncSync(this.fd);
  }

  async close(): Promise<void> {
    await this.writer.close();
    unlockDirectory(this.dir, LOCK);
  }
}

function replay(file: string, apply: (r: JournalRecord) => void): void {
  if (!fs.existsSync(file)) return;
  const text = fs.readFileSync(file, 'utf8');
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (!line.trim()) continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      if (i === lines.length - 1) break; // torn tail: never acknowledged
      throw new Error(`journal ${file} is corrupt at line ${i + 1}`);
    }
    if (!isRecord(parsed)) throw new Error(`journal ${file} holds an unknown record at line ${i + 1}`);
    apply(parsed);
  }
}
