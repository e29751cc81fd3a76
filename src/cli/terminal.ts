/**
 * Terminal output: ANSI colours only on a TTY (and never with NO_COLOR set), and a progress line
 * that rewrites itself on a TTY but prints one line per step elsewhere (logs, CI, pipes).
 */
const CODES = { red: 31, green: 32, yellow: 33, blue: 34, magenta: 35, cyan: 36, gray: 90, bold: 1 } as const;
export type Colour = keyof typeof CODES;

export type Paint = (colour: Colour, text: string) => string;

export function colours(stream: NodeJS.WriteStream, env: NodeJS.ProcessEnv = process.env): Paint {
  const on = stream.isTTY === true && env.NO_COLOR === undefined && env.TERM !== 'dumb';
  return on ? (colour, text) => `\x1b[${CODES[colour]}m${text}\x1b[0m` : (_colour, text) => text;
}

/** Colour of an operation status: green done, red failed, yellow in progress. */
export function statusColour(status: string | undefined): Colour {
  switch (status) {
    case 'Succeeded':
      return 'green';
    case 'Failed':
      return 'red';
    case 'Canceled':
      return 'magenta';
    case undefined:
      return 'gray';
    default:
      return 'yellow';
  }
}

export interface Progress {
  /** Step `done` of `total`, with a short note ("replaying abc…"). */
  update(done: number, total: number, note: string): void;
  /** A line that stays (a result or an error), printed above the progress line. */
  log(line: string): void;
  /** Clears the progress line. */
  end(): void;
}

export function progress(stream: NodeJS.WriteStream): Progress {
  const tty = stream.isTTY === true;
  let shown = false;
  const clear = (): void => {
    if (tty && shown) stream.write('\r\x1b[K');
    shown = false;
  };
  return {
    update(done, total, note) {
      const width = 20;
      const filled = total > 0 ? Math.round((done / total) * width) : width;
      const line = `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} ${note}`;
      if (tty) {
        stream.write(`\r\x1b[K${line.slice(0, Math.max(20, (stream.columns ?? 100) - 1))}`);
        shown = true;
      } else {
        stream.write(`${line}\n`);
      }
    },
    log(line) {
      clear();
      stream.write(`${line}\n`);
    },
    end: clear,
  };
}
