/**
 * Reads an HTTP answer's body without ever holding more than a set number of bytes: a Clusters
 * Service (or anything answering in its place, or an ops server `opstream explain` asks) that streams
 * without end must not grow the reader's memory. Past the limit the body is cancelled, which closes the
 * connection.
 */

/** What was read of a body. */
export interface BoundedBody {
  readonly text: string;
  /** True when the body went on past `limit` bytes: `text` holds only the first `limit` bytes. */
  readonly cut: boolean;
}

/**
 * Reads at most `limit` bytes of `res`'s body (UTF-8). A longer body is cut there and cancelled,
 * so its connection is closed instead of drained. A decoding error never throws (U+FFFD).
 */
export async function readBounded(res: Response, limit: number): Promise<BoundedBody> {
  const body = res.body;
  if (body === null) return { text: '', cut: false };
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let kept = 0;
  let cut = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      const room = limit - kept;
      if (value.byteLength > room) {
        if (room > 0) chunks.push(value.subarray(0, room));
        kept = limit;
        cut = true;
        break;
      }
      chunks.push(value);
      kept += value.byteLength;
    }
  } finally {
    if (cut) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
  return { text: new TextDecoder().decode(Buffer.concat(chunks, kept)), cut };
}

/** A byte count for people: `4 MiB`, `8 KiB`, `100 bytes`. */
export function formatBytes(bytes: number): string {
  if (bytes >= 1 << 20 && bytes % (1 << 20) === 0) return `${bytes / (1 << 20)} MiB`;
  if (bytes >= 1 << 10 && bytes % (1 << 10) === 0) return `${bytes / (1 << 10)} KiB`;
  return `${bytes} bytes`;
}
