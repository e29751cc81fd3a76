import { Container, ErrorResponse } from '@azure/cosmos';

/**
 * The frontend's side of the subscription lock: it writes Resource and Operation documents while
 * holding it, as ARO-HCP's frontend does. Create = acquire (409 = held), delete = release; the
 * container's TTL frees a lock whose holder died. Sections here are short (two writes), so no renewal.
 */
export async function withFrontendLock<T>(
  locks: Container,
  subscriptionId: string,
  owner: string,
  fn: () => Promise<T>,
  options: { timeoutMs?: number; retryMs?: number } = {},
): Promise<T> {
  const id = subscriptionId.toLowerCase();
  const deadline = Date.now() + (options.timeoutMs ?? 15_000);
  let etag: string | undefined;
  for (;;) {
    try {
      const res = await locks.items.create({ id, owner, acquiredAt: new Date().toISOString() });
      etag = res.etag;
      break;
    } catch (err) {
      if ((err as ErrorResponse).code !== 409) throw err;
      if (Date.now() > deadline) throw new Error(`frontend: subscription lock ${id} still held after ${options.timeoutMs ?? 15_000} ms`, { cause: err });
      await new Promise((r) => setTimeout(r, options.retryMs ?? 25));
    }
  }
  try {
    return await fn();
  } finally {
    await locks
      .item(id, id)
      .delete({ accessCondition: { type: 'IfMatch', condition: etag } })
      .catch((err: ErrorResponse) => {
        if (err.code !== 412 && err.code !== 404) throw err;
      });
  }
}
