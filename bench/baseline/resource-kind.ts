/** Whether an ARM id names a node pool (the CS calls differ). */
import { parseArmResourceId } from '../../src/domain/ids';

export function isNodePoolResourceId(armId: string): boolean {
  return parseArmResourceId(armId).nodePoolName !== undefined;
}
