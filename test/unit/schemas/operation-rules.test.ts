import { canBeIn, initialStatus, REQUEST_KINDS, REQUEST_STATUSES } from '../../../src/domain/requests';
import { OPERATION_STATUSES } from '../../../src/domain/statuses';
import type { Operation } from '../../../src/domain/types';
import { ArmNotifier } from '../../../src/arm/arm-notifier';
import { check } from '../../../src/schemas/validator';
import type { ValidationError } from '../../../src/schemas/errors';
import { NODE_POOL_ARM_ID, operationExample, SUBSCRIPTION_ID } from '../../fixtures/aro-hcp-documents';

/**
 * The Operation rules ARM depends on: `status` is tied to `request` (a Create is never Deleting),
 * and `operationId` is required and an ARM operation-status id (what the notification carries as
 * `id`). A document that breaks one is refused with a message naming the field, which the pipeline
 * puts on the dead letter.
 */
const doc = (overrides: Record<string, unknown>): unknown => JSON.parse(JSON.stringify(operationExample(overrides))) as unknown;

function refused(value: unknown): ValidationError {
  const result = check('operation', value);
  if (result.ok) throw new Error('expected the operation to be refused');
  return result.error;
}

const TERMINAL = ['Succeeded', 'Failed', 'Canceled'];

describe('Operation: status is tied to request', () => {
  it('the schema and domain/requests REQUEST_STATUSES allow exactly the same pairs', () => {
    for (const request of REQUEST_KINDS) {
      for (const status of OPERATION_STATUSES) {
        expect([request, status, check('operation', doc({ request, status })).ok]).toEqual([request, status, canBeIn(request, status)]);
      }
    }
  });

  it.each([
    ['Create', ['Accepted', 'Provisioning']],
    ['Update', ['Accepted', 'Updating']],
    ['Delete', ['Deleting']],
    ['RequestCredential', ['Accepted', 'Provisioning']],
    ['RevokeCredentials', ['Accepted', 'Deleting']],
  ] as const)('%s: %j, then terminal', (request, nonTerminal) => {
    expect(REQUEST_STATUSES[request]).toEqual(nonTerminal);
    for (const status of [...nonTerminal, ...TERMINAL])
      expect([status, check('operation', doc({ request, status })).ok]).toEqual([status, true]);
  });

  it('the status the frontend writes for each request is valid', () => {
    for (const request of REQUEST_KINDS)
      expect([request, check('operation', doc({ request, status: initialStatus(request) })).ok]).toEqual([request, true]);
  });

  it.each([
    ['Create', 'Deleting', '"Accepted", "Provisioning", "Succeeded", "Failed", "Canceled"'],
    ['Create', 'Updating', '"Accepted", "Provisioning", "Succeeded", "Failed", "Canceled"'],
    ['Update', 'Provisioning', '"Accepted", "Updating", "Succeeded", "Failed", "Canceled"'],
    ['Update', 'Deleting', '"Accepted", "Updating", "Succeeded", "Failed", "Canceled"'],
    ['Delete', 'Accepted', '"Deleting", "Succeeded", "Failed", "Canceled"'],
    ['Delete', 'Provisioning', '"Deleting", "Succeeded", "Failed", "Canceled"'],
    ['RequestCredential', 'Deleting', '"Accepted", "Provisioning", "Succeeded", "Failed", "Canceled"'],
    ['RevokeCredentials', 'Provisioning', '"Accepted", "Deleting", "Succeeded", "Failed", "Canceled"'],
  ])('a %s that is %s is refused, naming status and what the request allows', (request, status, allowed) => {
    const err = refused(doc({ request, status }));
    expect(err.field).toBe('status');
    expect(err.pointer).toBe('/status');
    expect(err.issues).toHaveLength(1);
    expect(err.message).toBe(`invalid operation "8f0b8c3e-3b4c-4e5f-9a6b-7c8d9e0f1a2b": status must be one of ${allowed}`);
  });

  it('the rule applies only with a known request: a bad request is named itself', () => {
    const err = refused(doc({ request: 'Patch', status: 'Deleting' }));
    expect(err.issues.map((i) => i.field)).toEqual(['request']);
  });
});

describe('Operation: operationId is what ARM needs', () => {
  it('is required', () => {
    const err = refused(doc({ operationId: undefined }));
    expect(err.field).toBe('operationId');
    expect(err.message).toBe('invalid operation "8f0b8c3e-3b4c-4e5f-9a6b-7c8d9e0f1a2b": operationId is required');
  });

  it.each([
    ['the document id', '8f0b8c3e-3b4c-4e5f-9a6b-7c8d9e0f1a2b'],
    ['empty', ''],
    ['the resource id', NODE_POOL_ARM_ID],
    [
      'a URL',
      `https://management.azure.com/subscriptions/${SUBSCRIPTION_ID}/providers/Microsoft.RedHatOpenShift/locations/eastus/hcpOperationStatuses/x`,
    ],
    ['without the location', `/subscriptions/${SUBSCRIPTION_ID}/providers/Microsoft.RedHatOpenShift/hcpOperationStatuses/x`],
  ])('refuses %s, naming operationId and the expected shape', (_what, operationId) => {
    const err = refused(doc({ operationId }));
    expect(err.field).toBe('operationId');
    expect(err.message).toBe(
      'invalid operation "8f0b8c3e-3b4c-4e5f-9a6b-7c8d9e0f1a2b": operationId must match pattern "^/subscriptions/[^/]+/providers/[^/]+/locations/[^/]+/[^/]+/[^/]+$"',
    );
  });

  it('accepts the ARM operation-status id, which the ARM notification carries as id', () => {
    const value = doc({ status: 'Succeeded' });
    const result = check('operation', value);
    if (!result.ok) throw result.error;
    const op: Operation = result.value;
    expect(op.operationId).toBe(
      `/subscriptions/${SUBSCRIPTION_ID}/providers/Microsoft.RedHatOpenShift/locations/eastus/hcpOperationStatuses/8f0b8c3e-3b4c-4e5f-9a6b-7c8d9e0f1a2b`,
    );
    expect(ArmNotifier.bodyOf(op)).toMatchObject({ id: op.operationId, name: op.id, status: 'Succeeded' });
  });
});
