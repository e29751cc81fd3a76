import type { TapEvent } from '../ops/taps';
import type { TapFilter } from '../ops/tap-filter';
import { CliError, EXIT } from './exit-codes';
import { unreachable, type OpsEndpoint } from './ops-endpoint';
import { SseParser } from './sse-parser';

/**
 * Follows `/streams/<name>` of a running instance and yields its events until `signal` aborts
 * (then it returns quietly). An unknown stream, a refused token or an unreachable server is a
 * CliError with the exit code for it; the server ending the stream is one too, since a tap only
 * ends when its instance stops or drops it as too slow. Events the server dropped for this client (it
 * read slower than they came) are announced by an `event: gap`, which goes to `onGap`, not out as an event.
 */
export async function* tapEvents(
  endpoint: OpsEndpoint,
  stream: string,
  filter: TapFilter,
  signal: AbortSignal,
  onConnected: (url: URL) => void = () => undefined,
  onGap: (dropped: number) => void = () => undefined,
): AsyncGenerator<TapEvent> {
  const url = new URL(`/streams/${encodeURIComponent(stream).replace('%2A', '*')}`, endpoint.url);
  for (const [key, value] of Object.entries(filter)) if (value) url.searchParams.set(key, value);
  let res: Response;
  try {
    res = await fetch(url, {
      signal,
      headers: { accept: 'text/event-stream', ...(endpoint.token ? { authorization: `Bearer ${endpoint.token}` } : {}) },
    });
  } catch (err) {
    if (signal.aborted) return;
    throw unreachable(endpoint.url, err);
  }
  if (res.status === 404) {
    const body = (await res.json().catch(() => ({}))) as { streams?: unknown };
    const known = Array.isArray(body.streams) ? body.streams.join(', ') : '(the server did not list them)';
    throw new CliError(`unknown stream "${stream}"; known streams: ${known}, or * for all`, EXIT.usage);
  }
  if (res.status === 401)
    throw new CliError(`the ops server at ${endpoint.url} refused the token: pass --token or set OPSTREAM_OPS_TOKEN`, EXIT.noPermission);
  if (!res.ok || !res.body) {
    // The server says why (too many stream clients, a Host it does not answer): pass it on.
    const body = (await res.json().catch(() => ({}))) as { error?: unknown };
    const why = typeof body.error === 'string' ? `: ${body.error}` : '';
    throw new CliError(`the ops server at ${endpoint.url} answered ${res.status} for ${url.pathname}${why}`, EXIT.unavailable);
  }

  onConnected(url);
  const ended = `the ops server at ${endpoint.url} ended the stream (the instance stopped, or dropped this client as too slow)`;
  const parser = new SseParser();
  const decoder = new TextDecoder();
  const reader = res.body.getReader();
  try {
    for (;;) {
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch (err) {
        if (signal.aborted) return;
        throw new CliError(`${ended}: ${(err as Error).message}`, EXIT.unavailable, { cause: err });
      }
      if (chunk.done) {
        if (signal.aborted) return;
        throw new CliError(ended, EXIT.unavailable);
      }
      for (const message of parser.push(decoder.decode(chunk.value, { stream: true }))) {
        if (message.event === 'gap') onGap(Number((JSON.parse(message.data) as { dropped?: unknown }).dropped) || 0);
        else yield JSON.parse(message.data) as TapEvent;
      }
    }
  } finally {
    reader.releaseLock();
  }
}
