/** ARM request kinds an Operation can carry, and the status each one starts in. */
import type { OperationRequest, OperationStatus } from '../schemas/types.generated';

export type { OperationRequest };

export const REQUEST_KINDS: readonly OperationRequest[] = Object.freeze([
  'Create',
  'Update',
  'Delete',
  'RequestCredential',
  'RevokeCredentials',
]);

export function isOperationRequest(value: unknown): value is OperationRequest {
  return typeof value === 'string' && (REQUEST_KINDS as readonly string[]).includes(value);
}

/**
 * A new Create/Update starts Accepted; a Delete starts Deleting (so a second DELETE gets 409
 * from the frontend while the first is running).
 */
export function initialStatus(request: OperationRequest): OperationStatus {
  return request === 'Delete' ? 'Deleting' : 'Accepted';
}
