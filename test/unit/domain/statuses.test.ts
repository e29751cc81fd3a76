import common from '../../../schemas/common.schema.json';
import {
  isNonTerminal,
  isOperationStatus,
  isTerminal,
  NON_TERMINAL_STATUSES,
  OPERATION_STATUSES,
  TERMINAL_STATUSES,
} from '../../../src/domain/statuses';
import { initialStatus, isOperationRequest, REQUEST_KINDS } from '../../../src/domain/requests';

describe('statuses and request kinds', () => {
  it('list exactly the values the schemas allow', () => {
    expect([...OPERATION_STATUSES].sort()).toEqual([...common.definitions.status.enum].sort());
    expect([...TERMINAL_STATUSES].sort()).toEqual([...common.definitions.terminalStatus.enum].sort());
    expect([...REQUEST_KINDS].sort()).toEqual([...common.definitions.request.enum].sort());
  });

  it.each([
    ['Accepted', false],
    ['Provisioning', false],
    ['Updating', false],
    ['Deleting', false],
    ['Succeeded', true],
    ['Failed', true],
    ['Canceled', true],
  ] as const)('%s is terminal: %s', (status, terminal) => {
    expect(isTerminal(status)).toBe(terminal);
    expect(isNonTerminal(status)).toBe(!terminal);
    expect(NON_TERMINAL_STATUSES.includes(status as never)).toBe(!terminal);
  });

  it('recognise values only in their exact casing', () => {
    expect(isOperationStatus('Succeeded')).toBe(true);
    expect(isOperationStatus('succeeded')).toBe(false);
    expect(isOperationStatus(3)).toBe(false);
    expect(isOperationRequest('RevokeCredentials')).toBe(true);
    expect(isOperationRequest('Patch')).toBe(false);
  });

  it('a Delete starts Deleting, everything else Accepted', () => {
    expect(REQUEST_KINDS.map((r) => [r, initialStatus(r)])).toEqual([
      ['Create', 'Accepted'],
      ['Update', 'Accepted'],
      ['Delete', 'Deleting'],
      ['RequestCredential', 'Accepted'],
      ['RevokeCredentials', 'Accepted'],
    ]);
  });
});
