import type { ServiceBusClient } from '@azure/service-bus';

/** Closing waits at most this long; whatever the SDK still has in progress ends within one retry delay. */
const CLOSE_WAIT_MS = 2000;

/**
 * Closes a Service Bus client's links (`closeLinks`, then the client) waiting at most `waitMs`, so a
 * stop never hangs on Service Bus being down; the client is then closed anyway (a link still starting
 * up closes once its attempt ends).
 */
export async function closeBounded(client: ServiceBusClient, closeLinks: () => Promise<void>, waitMs = CLOSE_WAIT_MS): Promise<void> {
  const closing = (async () => {
    await closeLinks();
    await client.close();
  })();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs)));
  await Promise.race([closing.catch(() => undefined), late]);
  clearTimeout(timer);
  await client.close().catch(() => undefined);
}
