import { systemClock, type Clock } from '../util/clock';

/**
 * `fn` behind a short cache: its answer serves every caller for `ms` after it came, and callers
 * while it is on its way share it. So a port anyone may ask (`/readyz`) costs at most one call of
 * `fn` (a Cosmos read) per `ms`, however often it is asked. A failure is not kept.
 */
export function cachedFor<T>(ms: number, fn: () => Promise<T>, clock: Clock = systemClock): () => Promise<T> {
  let answer: { value: T; at: number } | undefined;
  let pending: Promise<T> | undefined;
  return () => {
    if (answer && clock.now() - answer.at < ms) return Promise.resolve(answer.value);
    pending ??= fn().then(
      (value) => {
        answer = { value, at: clock.now() };
        pending = undefined;
        return value;
      },
      (err: unknown) => {
        pending = undefined;
        throw err;
      },
    );
    return pending;
  };
}
