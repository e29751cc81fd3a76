/**
 * Waits for a stop at most `timeoutMs`. True when it finished in time; false when the deadline
 * came first, and the caller exits at once: what is still running was fenced by then, and the
 * leases this instance could not release expire on their own.
 */
export async function stopWithin(stopping: Promise<void>, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  try {
    return await Promise.race([stopping.then(() => true as const), deadline]);
  } finally {
    clearTimeout(timer);
  }
}
