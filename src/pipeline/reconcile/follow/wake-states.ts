import type { OperationRequest } from '../../../domain/types';

/**
 * The Clusters Service states an event may report that are worth a status check at once: those in
 * which the operation can end (domain/cs-mapping: ready ends a Create or Update, error ends anything,
 * 404 (`deleted`) ends a Delete). Intermediate states (installing, updating, uninstalling) are left to
 * the follow's own checks: a read for each would cost more calls than the follow makes without
 * events, to write a status ARM rarely sees. Pure.
 */
export function wakeStates(kind: 'cluster' | 'nodePool', request: OperationRequest): readonly string[] {
  const errors = kind === 'cluster' ? ['error'] : ['error', 'recoverable_error'];
  return request === 'Delete' ? ['deleted', ...errors] : ['ready', ...errors];
}
