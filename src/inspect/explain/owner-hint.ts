/** The ops server's port when a lease names none: `ops.addr`'s default. */
const DEFAULT_OPS_PORT = 9464;

/**
 * How an operator reaches a range's owner from where `explain` runs, when its own answer is missing:
 * a port-forward to its pod (the host it wrote into the lease is the pod's name on Kubernetes), then
 * `--owner-url` on loopback. Named exactly, so the next command is a paste, not a guess.
 */
export function howToAsk(owner: string, host: string | undefined, advertisedUrl: string | undefined): string {
  const port = portOf(advertisedUrl);
  const where = host ? `its host ${host}` : `the host of ${owner}`;
  const forward = host ? `kubectl port-forward pod/${host} ${port}` : `kubectl port-forward pod/<pod of ${owner}> ${port}`;
  return `ask ${owner} itself: reach port ${port} of ${where} (on Kubernetes: ${forward}) and pass --owner-url http://127.0.0.1:${port}`;
}

function portOf(url: string | undefined): number {
  if (!url) return DEFAULT_OPS_PORT;
  try {
    const parsed = new URL(url);
    return parsed.port ? Number(parsed.port) : parsed.protocol === 'https:' ? 443 : 80;
  } catch {
    return DEFAULT_OPS_PORT;
  }
}
