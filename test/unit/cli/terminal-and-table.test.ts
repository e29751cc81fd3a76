import { PassThrough } from 'stream';
import { formatTable } from '../../../src/cli/table';
import { colours, progress } from '../../../src/cli/terminal';

function stream(tty: boolean): NodeJS.WriteStream & { text(): string } {
  const s = new PassThrough() as unknown as NodeJS.WriteStream & { text(): string };
  let out = '';
  (s as unknown as PassThrough).on('data', (c: Buffer) => (out += c.toString()));
  Object.assign(s, { isTTY: tty, columns: 80, text: () => out });
  return s;
}

describe('terminal output', () => {
  it('colours only a TTY, and never with NO_COLOR', () => {
    expect(colours(stream(true), {})('red', 'x')).toBe('\x1b[31mx\x1b[0m');
    expect(colours(stream(true), { NO_COLOR: '1' })('red', 'x')).toBe('x');
    expect(colours(stream(false), {})('red', 'x')).toBe('x');
  });

  it('rewrites one progress line on a TTY, keeping logged lines above it', async () => {
    const s = stream(true);
    const bar = progress(s);
    bar.update(0, 2, 'a');
    bar.log('replayed a');
    bar.update(1, 2, 'b');
    bar.end();
    await new Promise((r) => setImmediate(r));
    expect(s.text()).toBe('\r\x1b[K[....................] 0/2 a\r\x1b[Kreplayed a\n\r\x1b[K[##########..........] 1/2 b\r\x1b[K');
  });

  it('prints one progress line per step elsewhere', async () => {
    const s = stream(false);
    const bar = progress(s);
    bar.update(1, 4, 'x');
    bar.log('done x');
    bar.end();
    await new Promise((r) => setImmediate(r));
    expect(s.text()).toBe('[#####...............] 1/4 x\ndone x\n');
  });
});

describe('formatTable', () => {
  it('pads columns to the widest cell and right-aligns numbers', () => {
    const rows = [
      { name: 'a', n: 5 },
      { name: 'longer', n: 12345 },
    ];
    expect(
      formatTable(rows, [
        { header: 'NAME', value: (r) => r.name },
        { header: 'N', value: (r) => String(r.n), align: 'right' },
      ]),
    ).toBe(['NAME        N', 'a           5', 'longer  12345'].join('\n'));
  });
});
