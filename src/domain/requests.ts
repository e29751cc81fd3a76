/** ARM request kinds an Operation can carry, and the status each one starts in. */
import type { OperationRequest, OperationStatus } from './types.generated';
import { isTerminal, type NonTerminalStatus } from './statuses';

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

/**
 * The non-terminal statuses an operation of each request can be in; every request can also end
 * Succeeded, Failed or Canceled. `schemas/operation.schema.json` enforces the same table (a unit
 * test checks both agree), so a status outside it is dead-lettered, never written.
 */
export const REQUEST_STATUSES: Readonly<Record<OperationRequest, readonly NonTerminalStatus[]>> = Object.freeze({
  Create: ['Accepted', 'Provisioning'],
  Update: ['Accepted', 'Updating'],
  Delete: ['Deleting'],
  RequestCredential: ['Accepted', 'Provisioning'],
  RevokeCredentials: ['Accepted', 'Deleting'],
});

/** True when an operation of `request` can be in `status`. */
export function canBeIn(request: OperationRequest, status: OperationStatus): boolean {
  return isTerminal(status) || (REQUEST_STATUSES[request] as readonly OperationStatus[]).includes(status);
}

/**
 * Whether the frontend makes an operation of this request its Resource's active one (Create, Update,
 * Delete: `activeOperationId`, and the Resource's `provisioningState` follows it). Credential requests
 * leave the Resource as it is: another operation's being active or terminal says nothing about them.
 */
export function takesOverResource(request: OperationRequest): boolean {
  return request === 'Create' || request === 'Update' || request === 'Delete';
}
