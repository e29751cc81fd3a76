import { createHash } from 'node:crypto';
import {
  operationEventMessage,
  operationEventOf,
  resourceSessionId,
  transitionMessageId,
} from '../../../src/service-bus/operation-event-message';
import type { Operation } from '../../../src/domain/types.generated';
import { check } from '../../../src/schemas/validator';

const SUB = '0b3d1f5a-8a4c-4f4e-9c2b-1d2e3f4a5b6c';
const CLUSTER = `/subscriptions/${SUB.toUpperCase()}/resourceGroups/RG/providers/Microsoft.RedHatOpenShift/hcpOpenShiftClusters/Mycluster`;
const NODE_POOL = `${CLUSTER}/nodePools/np1`;

function operation(overrides: Partial<Operation> = {}): Operation {
  return {
    id: '8f0b2c3d-1111-4222-8333-944455556666',
    partitionKey: SUB,
    tenantId: 'tenant',
    clientId: 'client',
    request: 'Create',
    externalId: CLUSTER,
    internalId: '',
    operationId: `/subscriptions/${SUB}/providers/Microsoft.RedHatOpenShift/locations/eastus/hcpOperationStatuses/8f0b2c3d-1111-4222-8333-944455556666`,
    notificationUri: 'https://arm.example/notify',
    startTime: '2026-12-01T05:00:00.000Z',
    lastTransitionTime: '2026-12-01T05:00:00.000Z',
    status: 'Accepted',
    _etag: '"1"',
    _ts: 1,
    ...overrides,
  } as Operation;
}

describe('an Operation version becomes the message that publishes its transition', () => {
  it('the body is the public view: ids, request, status, error, times; no caller identity, notification URI or system fields', () => {
    const error = { code: 'InternalServerError', message: 'boom' };
    const event = operationEventOf(
      operation({ status: 'Failed', error, internalId: '/api/aro_hcp/v1alpha1/clusters/abc', correlationRequestId: 'corr' }),
    );
    expect(event).toEqual({
      id: '8f0b2c3d-1111-4222-8333-944455556666',
      operationId: operation().operationId,
      resourceId: CLUSTER,
      resourceType: 'Microsoft.RedHatOpenShift/hcpOpenShiftClusters',
      subscriptionId: SUB,
      internalId: '/api/aro_hcp/v1alpha1/clusters/abc',
      request: 'Create',
      status: 'Failed',
      error,
      startTime: '2026-12-01T05:00:00.000Z',
      lastTransitionTime: '2026-12-01T05:00:00.000Z',
      correlationRequestId: 'corr',
    });
    expect(check('operationEvent', event).ok).toBe(true);
  });

  it('the schema refuses what the view must not carry', () => {
    expect(check('operationEvent', { ...operationEventOf(operation()), notificationUri: 'https://arm.example/notify' }).ok).toBe(false);
  });

  it('a node pool is its own resource type and its own session', () => {
    const m = operationEventMessage(operation({ externalId: NODE_POOL }));
    expect(m.applicationProperties).toEqual({
      subscriptionId: SUB,
      resourceType: 'Microsoft.RedHatOpenShift/hcpOpenShiftClusters/nodePools',
      request: 'Create',
      status: 'Accepted',
    });
    expect(m.sessionId).not.toBe(operationEventMessage(operation()).sessionId);
  });

  it.each([
    [
      'the same transition rewritten (notification cleared) has the same id',
      operation({ status: 'Succeeded' }),
      operation({ status: 'Succeeded', notificationUri: undefined }),
      true,
    ],
    ['another status has another id', operation({ status: 'Accepted' }), operation({ status: 'Provisioning' }), false],
    [
      'the same status written again later (a new transition) has another id',
      operation({ status: 'Deleting' }),
      operation({ status: 'Deleting', lastTransitionTime: '2026-12-01T05:00:01.000Z' }),
      false,
    ],
  ])('message id: %s', (_name, a, b, same) => {
    expect(transitionMessageId(a) === transitionMessageId(b)).toBe(same);
    expect(operationEventMessage(a).messageId).toBe(`${a.id}:${a.status}:${a.lastTransitionTime}`);
  });

  it('an id past the 128 characters Service Bus allows is hashed, stably', () => {
    const long = operation({ id: 'x'.repeat(200) });
    expect(transitionMessageId(long)).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(transitionMessageId(long)).toBe(transitionMessageId({ ...long }));
  });

  it('the session is the SHA-256 of the lower-cased ARM id, whatever its casing', () => {
    expect(resourceSessionId(CLUSTER)).toBe(createHash('sha256').update(CLUSTER.toLowerCase()).digest('hex'));
    expect(resourceSessionId(CLUSTER.toLowerCase())).toBe(resourceSessionId(CLUSTER));
    expect(operationEventMessage(operation()).contentType).toBe('application/json');
  });
});
