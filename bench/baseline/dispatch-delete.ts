/**
 * Delete dispatch in the pass: CS DELETE (404 = already gone), remembered in memory so the next
 * passes follow the status until 404 (DELETE is idempotent, so after a restart it is simply sent
 * again). A resource that never got a CS id has nothing to delete in CS: it is done at once.
 */
import { parseCsHref, resourceDocumentId } from '../../src/domain/ids';
import { DONE, keep, type BaselineContext, type StepResult, type StoredOperation } from './context';
import { writeBack } from './write-back';

export async function dispatchDelete(ctx: BaselineContext, op: StoredOperation): Promise<StepResult> {
  const resource = await ctx.resources.read(op.partitionKey, resourceDocumentId(op.externalId));
  const href = resource?.internalId || op.internalId;
  if (!href) {
    const written = await writeBack(ctx, op, { kind: 'deleted' });
    return written ? keep(written) : DONE;
  }
  const target = parseCsHref(href);
  if (target.nodePoolId === undefined) await ctx.cs.deleteCluster(target.clusterId);
  else await ctx.cs.deleteNodePool(target.clusterId, target.nodePoolId);
  ctx.deletesSent.add(op.id);
  return keep(op.internalId ? op : { ...op, internalId: href });
}
