import { armIdEquals } from '../domain/ids';
import type { Operation, Stored } from '../domain/types';
import type { PipelineContext } from './context';
import { SUPERSEDED } from './reconcile-operation';
import { transition } from './transition';

/**
 * A Delete supersedes whatever Create or Update is still running on the same resource: those end
 * `Canceled` (and ARM is told). The Resource is left to the Delete. Returns how many were canceled.
 */
export async function cancelSuperseded(ctx: PipelineContext, deleteOp: Stored<Operation>): Promise<number> {
  const { items } = await ctx.operations.listNonTerminal({ partitionKeys: [deleteOp.partitionKey] });
  const superseded = items.filter((o) => o.id !== deleteOp.id && o.request !== 'Delete' && armIdEquals(o.externalId, deleteOp.externalId));
  for (const op of superseded) {
    await transition(ctx, op, { status: 'Canceled', error: { ...SUPERSEDED }, skipResource: true });
  }
  return superseded.length;
}
