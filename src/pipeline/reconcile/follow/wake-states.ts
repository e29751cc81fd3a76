import type { OperationRequest } from '../../../domain/types';

/**
 * The Clusters Service states an event may report that are worth a status check at once: those in
 * which the operation can end (domain/cs-mapping: ready ends a Create or Update, an error state ends
 * anything, 404 (`deleted`) ends a Delete). Intermediate states (installing, updating, uninstalling)
 * are left to the follow's own checks: a read for each would cost more calls than the follow makes
 * without events, to write a status ARM rarely sees. `errorStates` are the kind's (each kind of
 * Clusters Service object names its failures its own way). Pure.
 */
export function wakeStates(request: OperationRequest, errorStates: readonly string[]): readonly string[] {
  return request === 'Delete' ? ['deleted', ...errorStates] : ['ready', ...errorStates];
}
