import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Journal } from '@opstream/cosmos-emulator/journal';
import { JournalRecord } from '@opstream/cosmos-emulator/journal-records';

describe('journal', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cosmos-journal-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const db = (id: string): JournalRecord => ({ k: 'db+', id, rid: 'AAAAAA==', ts: 1, etag: '"e"' });

  it('replays every acknowledged record, in order, after a reopen', async () => {
    const j = await Journal.open(dir, () => undefined);
    const durable: string[] = [];
    await Promise.all(['a', 'b', 'c'].map((id) => j.append(db(id), () => durable.push(id))));
    expect(durable).toEqual(['a', 'b', 'c']);
    await j.close();
    const seen: string[] = [];
    const again = await Journal.open(dir, (r) => r.k === 'db+' && seen.push(r.id));
    await again.close();
    expect(seen).toEqual(['a', 'b', 'c']);
  });

  it('ignores a torn last line and appends cleanly after it', async () => {
    const j = await Journal.open(dir, () => undefined);
    await j.append(db('a'));
    await j.close();
    fs.appendFileSync(path.join(dir, 'journal.jsonl'), '{"k":"db+","id":"torn","ri');
    const first: string[] = [];
    const j2 = await Journal.open(dir, (r) => r.k === 'db+' && first.push(r.id));
    expect(first).toEqual(['a']);
    await j2.append(db('b'));
    await j2.close();
    const second: string[] = [];
    await (await Journal.open(dir, (r) => r.k === 'db+' && second.push(r.id))).close();
    expect(second).toEqual(['a', 'b']);
  });

  it('compacts into a snapshot and starts an empty journal', async () => {
    const j = await Journal.open(dir, () => undefined);
    await j.append(db('a'));
    await j.append({ k: 'db-', id: 'a' });
    await j.append(db('b'));
    await j.compact([db('b')]);
    expect(fs.statSync(path.join(dir, 'journal.jsonl')).size).toBe(0);
    await j.append(db('c'));
    await j.close();
    const seen: string[] = [];
    await (await Journal.open(dir, (r) => seen.push(r.k === 'db+' ? r.id : r.k))).close();
    expect(seen).toEqual(['b', 'c']);
  });

  it('refuses a journal that is corrupt in the middle', async () => {
    fs.writeFileSync(path.join(dir, 'journal.jsonl'), '{"k":"db+","id":"a","rid":"x","ts":1,"etag":"e"}\nGARBAGE\n{"k":"db-","id":"a"}\n');
    await expect(Journal.open(dir, () => undefined)).rejects.toThrow(/corrupt/);
  });
});

describe('journal directory lock', () => {
  it('refuses a directory held by a live process and takes over a stale lock', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cosmos-journal-lock-'));
    try {
      const parentPid = process.ppid; // alive, and not us
      fs.writeFileSync(path.join(dir, 'emulator.pid'), String(parentPid));
      await expect(Journal.open(dir, () => undefined)).rejects.toThrow(/in use by another emulator/);
      fs.writeFileSync(path.join(dir, 'emulator.pid'), '999999999'); // no such process
      const j = await Journal.open(dir, () => undefined);
      expect(fs.readFileSync(path.join(dir, 'emulator.pid'), 'utf8')).toBe(String(process.pid));
      await j.close();
      expect(fs.existsSync(path.join(dir, 'emulator.pid'))).toBe(false);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
