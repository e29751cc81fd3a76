import { formatBytes, readBounded } from '../../util/bounded-body';

/** How long the owner's ops server may take to answer, body included. */
const OWNER_TIMEOUT_MS = 5000;
/** Most read of its answer: an operation's state is a few KiB; past this it is not parsed. */
export const OWNER_ANSWER_BYTES = 256 * 1024;

/**
 * GET /api/operations/<id> of an instance's ops server at `origin` (already judged by `ownerTarget`);
 * the caller validates the answer. Redirects are not followed (they would take the token elsewhere),
 * and at most `OWNER_ANSWER_BYTES` of the answer is read.
 */
export async function askOwner(origin: string, operationId: string, token: string | undefined): Promise<unknown> {
  let res: Response;
  const signal = AbortSignal.timeout(OWNER_TIMEOUT_MS);
  try {
    res = await fetch(`${origin}/api/operations/${encodeURIComponent(operationId)}`, {
      headers: token ? { authorization: `Bearer ${token}` } : {},
      redirect: 'manual',
      signal,
    });
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message;
    throw new Error(`its ops server at ${origin} did not answer (${cause})`, { cause: err });
  }
  if (res.status === 401) {
    await res.body?.cancel();
    throw new Error(`its ops server at ${origin} refused the token: give the instances' ops.token (--ops-token, OPSTREAM_OPS_TOKEN)`);
  }
  if (res.status !== 200) {
    await res.body?.cancel();
    throw new Error(`its ops server at ${origin} answered ${res.status} (an older opstream without /api/operations?)`);
  }
  let body: { text: string; cut: boolean };
  try {
    body = await readBounded(res, OWNER_ANSWER_BYTES);
  } catch (err) {
    throw new Error(`its ops server at ${origin} broke off its answer (${(err as Error).message})`, { cause: err });
  }
  if (body.cut)
    throw new Error(
      `its ops server at ${origin} answered more than ${formatBytes(OWNER_ANSWER_BYTES)}, the most explain reads of an answer`,
    );
  try {
    return JSON.parse(body.text) as unknown;
  } catch {
    throw new Error(`its ops server at ${origin} answered something that is not JSON`);
  }
}
