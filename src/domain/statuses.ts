/**
 * Operation status / resource provisioning state values and their predicates. The value lists
 * are checked against `schemas/common.schema.json` by a unit test.
 */
import type { OperationStatus, TerminalStatus } from './types.generated';

export type { OperationStatus, TerminalStatus };
export type NonTerminalStatus = Exclude<OperationStatus, TerminalStatus>;

export const NON_TERMINAL_STATUSES: readonly NonTerminalStatus[] = Object.freeze(['Accepted', 'Provisioning', 'Updating', 'Deleting']);
export const TERMINAL_STATUSES: readonly TerminalStatus[] = Object.freeze(['Succeeded', 'Failed', 'Canceled']);
export const OPERATION_STATUSES: readonly OperationStatus[] = Object.freeze([...NON_TERMINAL_STATUSES, ...TERMINAL_STATUSES]);

export function isOperationStatus(value: unknown): value is OperationStatus {
  return typeof value === 'string' && (OPERATION_STATUSES as readonly string[]).includes(value);
}

/** Succeeded, Failed, Canceled: the operation is over; nothing may move it again. */
export function isTerminal(status: OperationStatus): status is TerminalStatus {
  return (TERMINAL_STATUSES as readonly string[]).includes(status);
}

/** Accepted, Provisioning, Updating, Deleting: opstream still has work to do. */
export function isNonTerminal(status: OperationStatus): status is NonTerminalStatus {
  return !isTerminal(status);
}
