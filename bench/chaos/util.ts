/**
 * Small helpers of the chaos harness: fixed loopback ports below the ephemeral range (a component
 * restarted on "the same port" must get it back, and an outgoing connection never holds it),
 * retries of the harness's own Cosmos calls through injected faults, and condition waits.
 */
import { createServer } from 'node:net';

/** A wait until a moment already past (`slot - Date.now()` < 0) ends at once; Node would warn of the negative timeout. */
export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, Math.max(0, ms)));

/** A free loopback port in [20000, 32000) (Linux hands out ephemeral ports from 32768). */
export async function freeFixedPort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    const ok = await new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
    if (ok) return port;
  }
  throw new Error('no free loopback port in 20000-32000');
}

/** HTTP status of a Cosmos SDK error (undefined for network errors). */
export function statusOf(err: unknown): number | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'number' ? code : undefined;
}

/** Transient for the harness: throttled, unavailable, timed out, gone, or no answer at all. */
function isTransient(err: unknown): boolean {
  const s = statusOf(err);
  return s === undefined || s === 408 || s === 410 || s === 429 || s === 449 || s >= 500;
}

/**
 * Runs `fn` until it succeeds or fails with a non-transient error, for at most `timeoutMs`: the
 * harness reads and writes through the same fault rules as opstream.
 */
export async function retrying<T>(fn: () => Promise<T>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (!isTransient(err) || Date.now() > deadline) throw err;
      await sleep(Math.min(1_000, 50 * 2 ** attempt));
    }
  }
}

/** Polls `condition` until true or the timeout; resolves with whether it became true. */
export async function waitUntil(condition: () => boolean | Promise<boolean>, timeoutMs: number, intervalMs = 250): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (await condition()) return true;
    } catch {
      // a read that failed is retried at the next tick
    }
    if (Date.now() > deadline) return false;
    await sleep(intervalMs);
  }
}

export function errorText(err: unknown): string {
  return err instanceof Error ? err.message.split('\n')[0] : String(err);
}
