import type { Operation, Resource, Stored } from '../../src/domain/types';
import type { ProcessorKit } from '../../src/pipeline/reconcile/processor';
import { Outcome, ended } from '../../src/pipeline/queue/outcome';
import type { TransitionChange } from '../../src/pipeline/reconcile/write-back';

/** Ends the operation with `change` (a terminal status) and has ARM notified right away. */
export async function endOperation(
  kit: ProcessorKit,
  op: Stored<Operation>,
  change: TransitionChange & { status: 'Succeeded' | 'Failed' | 'Canceled' },
  resource?: Stored<Resource>,
): Promise<Outcome> {
  await kit.writeBack(op, change, resource);
  return ended(change.status);
}
