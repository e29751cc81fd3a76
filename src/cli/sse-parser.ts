/** One event of the stream: its name and its data lines joined. */
export interface SseMessage {
  event: string;
  data: string;
}

/**
 * An incremental parser of a `text/event-stream` body (the subset the ops server sends: `event:`,
 * `data:` lines, `:` comments, events ended by a blank line). Feed it chunks as they arrive.
 */
export class SseParser {
  private buffer = '';
  private event = '';
  private data: string[] = [];

  /** Parses what is complete in `chunk` (plus what was left over) and returns the finished messages. */
  push(chunk: string): SseMessage[] {
    this.buffer += chunk;
    const out: SseMessage[] = [];
    let newline: number;
    while ((newline = this.buffer.search(/\r?\n/)) >= 0) {
      const line = this.buffer.slice(0, newline);
      this.buffer = this.buffer.slice(newline + (this.buffer[newline] === '\r' ? 2 : 1));
      if (line === '') {
        if (this.data.length) out.push({ event: this.event || 'message', data: this.data.join('\n') });
        this.event = '';
        this.data = [];
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'event') this.event = value;
      else if (field === 'data') this.data.push(value);
    }
    return out;
  }
}
