import { SUPERSEDED, armIdEquals, type Operation, type ProcessorKit, type Stored } from '../../src/kit';

/**
 * A Delete supersedes whatever Create or Update is still running on the same resource: those end
 * `Canceled` (and ARM is told). The Resource is left to the Delete. Returns how many were canceled.
 */
export async function cancelSuperseded(kit: ProcessorKit, deleteOp: Stored<Operation>): Promise<number> {
  const { items } = await kit.operations.listNonTerminal({ partitionKeys: [deleteOp.partitionKey] });
  const superseded = items.filter((o) => o.id !== deleteOp.id && o.request !== 'Delete' && armIdEquals(o.externalId, deleteOp.externalId));
  for (const op of superseded) {
    await kit.writeBack(op, { status: 'Canceled', error: { ...SUPERSEDED }, skipResource: true });
  }
  return superseded.length;
}
