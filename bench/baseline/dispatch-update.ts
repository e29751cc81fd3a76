/**
 * Update dispatch in the pass: an Accepted Update sends the desired properties to CS (PATCH), then
 * moves to Updating (the durable mark that the PATCH went out; the status follow takes over in the
 * next passes). CS answers 409 while the object is not ready: try again next pass.
 */
import { isClustersServiceError, isConflict, isNotFound } from '../../src/clusters-service';
import { parseCsHref, resourceDocumentId } from '../../src/domain/ids';
import { isClusterResource, isNodePoolResource } from '../../src/domain/resource-types';
import { DONE, keep, type BaselineContext, type StepResult, type StoredOperation } from './context';
import { writeBack } from './write-back';

export async function dispatchUpdate(ctx: BaselineContext, op: StoredOperation): Promise<StepResult> {
  const resource = await ctx.resources.read(op.partitionKey, resourceDocumentId(op.externalId));
  const href = resource?.internalId || op.internalId;
  if (!resource || resource.activeOperationId !== op.id || !href) {
    const written = await writeBack(ctx, op, { kind: 'keep' });
    return written ? keep(written) : DONE;
  }
  const target = parseCsHref(href);
  try {
    if (isClusterResource(resource)) {
      await ctx.cs.updateCluster(target.clusterId, { version: { id: resource.properties.version } });
    } else if (isNodePoolResource(resource)) {
      const p = resource.properties;
      await ctx.cs.updateNodePool(target.clusterId, target.nodePoolId ?? '', { replicas: p.replicas, version: { id: p.version } });
    } else {
      // The baseline is the engine before the plug-in line: it knew clusters and node pools only.
      throw new Error(`the baseline does not update ${resource.resourceType}`);
    }
  } catch (err) {
    if (isConflict(err)) return keep(op);
    if (isNotFound(err) || (isClustersServiceError(err) && !err.retriable)) {
      const written = await writeBack(ctx, op, {
        kind: 'set',
        status: 'Failed',
        error: { code: isNotFound(err) ? 'NotFound' : 'InvalidRequestContent', message: (err as Error).message },
      });
      return written ? keep(written) : DONE;
    }
    throw err;
  }
  const written = await writeBack(ctx, op, { kind: 'set', status: 'Updating' });
  return written ? keep(written.internalId ? written : { ...written, internalId: href }) : DONE;
}
