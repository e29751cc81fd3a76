import type { Operation, Resource, Stored } from '../../domain/types';
import type { Outcome } from '../queue/outcome';
import { ended, type ProcessorKit } from './processor';
import type { TransitionChange } from './write-back';

/** Ends the operation with `change` (a terminal status); the outcome has ARM notified right away. */
export async function endOperation(
  kit: Pick<ProcessorKit, 'writeBack'>,
  op: Stored<Operation>,
  change: TransitionChange & { status: 'Succeeded' | 'Failed' | 'Canceled' },
  resource?: Stored<Resource>,
): Promise<Outcome> {
  await kit.writeBack(op, change, resource);
  return ended(change.status);
}
