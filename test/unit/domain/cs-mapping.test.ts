import { mapClusterStatus, mapNodePoolStatus, type StatusDecision } from '../../../src/domain/cs-mapping';
import { inflightChecksError, MULTIPLE_ERRORS_MESSAGE } from '../../../src/domain/provision-errors';
import type { CsClusterStatus, CsInflightCheck, OperationRequest, OperationStatus } from '../../../src/domain/types.generated';

const cluster = (state: string, extra: Partial<CsClusterStatus> = {}): CsClusterStatus => ({
  kind: 'ClusterStatus',
  id: 'c1',
  state,
  ...extra,
});
const KEEP: StatusDecision = { kind: 'keep' };
const set = (status: OperationStatus): StatusDecision => ({ kind: 'set', status });

describe('cluster state → operation status', () => {
  const table: Array<[OperationRequest, OperationStatus, string, StatusDecision]> = [
    ['Create', 'Accepted', 'pending', KEEP],
    ['Create', 'Accepted', 'validating', KEEP],
    ['Create', 'Accepted', 'installing', set('Provisioning')],
    ['Create', 'Provisioning', 'installing', set('Provisioning')],
    ['Create', 'Provisioning', 'ready', set('Succeeded')],
    // A request never leaves its own statuses (schemas/operation.schema.json): a Create is never
    // Updating or Deleting, an Update never Provisioning or Deleting; the current status stays.
    ['Create', 'Provisioning', 'uninstalling', KEEP],
    ['Create', 'Provisioning', 'updating', KEEP],
    ['Update', 'Updating', 'installing', KEEP],
    ['Update', 'Updating', 'uninstalling', KEEP],
    ['Update', 'Accepted', 'pending', KEEP],
    ['Update', 'Accepted', 'updating', set('Updating')],
    ['Update', 'Updating', 'ready', set('Succeeded')],
    // CS reports ready while a delete starts: ready during a Delete keeps Deleting.
    ['Delete', 'Deleting', 'ready', KEEP],
    ['Delete', 'Deleting', 'pending', KEEP],
    ['Delete', 'Deleting', 'installing', KEEP],
    ['Delete', 'Deleting', 'updating', KEEP],
    ['Delete', 'Deleting', 'uninstalling', set('Deleting')],
    ['Create', 'Provisioning', 'hibernating', { kind: 'retry-later', reason: 'unknown cluster state "hibernating"' }],
    // A terminal operation never moves again.
    ['Create', 'Succeeded', 'installing', KEEP],
    ['Delete', 'Canceled', 'error', KEEP],
  ];
  it.each(table)('%s, currently %s, CS %s', (request, current, state, expected) => {
    expect(mapClusterStatus({ request, current, observation: { found: true, status: cluster(state) } })).toEqual(expected);
  });

  it.each([
    ['Delete', { kind: 'deleted' }],
    ['Create', { kind: 'retry-later', reason: 'Clusters Service answered 404' }],
    ['Update', { kind: 'retry-later', reason: 'Clusters Service answered 404' }],
  ] as const)('404 on a %s', (request, expected) => {
    expect(
      mapClusterStatus({ request, current: request === 'Delete' ? 'Deleting' : 'Provisioning', observation: { found: false } }),
    ).toEqual(expected);
  });

  describe('error state', () => {
    it.each([
      [
        'code and message',
        { provision_error_code: 'OCM3001', provision_error_message: 'quota exceeded', description: 'd' },
        { code: 'OCM3001', message: 'quota exceeded' },
      ],
      ['no code: InternalServerError', { provision_error_message: 'boom' }, { code: 'InternalServerError', message: 'boom' }],
      [
        'no message: the description',
        { provision_error_code: 'OCM3002', description: 'Cluster is in error' },
        { code: 'OCM3002', message: 'Cluster is in error' },
      ],
      ['nothing at all', {}, { code: 'InternalServerError', message: 'Cluster provisioning failed' }],
    ])('%s', (_name, extra, error) => {
      expect(
        mapClusterStatus({ request: 'Create', current: 'Provisioning', observation: { found: true, status: cluster('error', extra) } }),
      ).toEqual({
        kind: 'set',
        status: 'Failed',
        error,
      });
    });

    it('fails a Delete too', () => {
      const decision = mapClusterStatus({
        request: 'Delete',
        current: 'Deleting',
        observation: { found: true, status: cluster('error', { provision_error_code: 'OCM5001' }) },
      });
      expect(decision).toMatchObject({ kind: 'set', status: 'Failed', error: { code: 'OCM5001' } });
    });
  });

  describe('OCM4001: inflight checks', () => {
    const failedStatus = cluster('error', { provision_error_code: 'OCM4001', provision_error_message: 'Inflight checks failed' });
    const check = (name: string, status: string, error?: string): CsInflightCheck => ({
      kind: 'InflightCheck',
      name,
      status,
      ...(error ? { details: { error } } : {}),
    });

    it('asks for the inflight checks first', () => {
      expect(mapClusterStatus({ request: 'Create', current: 'Provisioning', observation: { found: true, status: failedStatus } })).toEqual({
        kind: 'need-inflight-checks',
      });
    });

    it('one failed check becomes the error', () => {
      const decision = mapClusterStatus({
        request: 'Create',
        current: 'Provisioning',
        observation: { found: true, status: failedStatus },
        inflightChecks: [check('egress', 'failed', 'egress to quay.io blocked'), check('dns', 'passed')],
      });
      expect(decision).toEqual({
        kind: 'set',
        status: 'Failed',
        error: { code: 'InternalServerError', message: 'egress to quay.io blocked' },
      });
    });

    it('several failed checks become MultipleErrorsOccurred with details', () => {
      expect(
        inflightChecksError(failedStatus, [
          check('egress', 'failed', 'egress blocked'),
          check('dns', 'failed', 'no DNS'),
          check('nsg', 'passed'),
        ]),
      ).toEqual({
        code: 'MultipleErrorsOccurred',
        message: MULTIPLE_ERRORS_MESSAGE,
        details: [
          { code: 'InternalServerError', message: 'egress blocked' },
          { code: 'InternalServerError', message: 'no DNS' },
        ],
      });
    });

    it('a failed check without details names the check', () => {
      expect(inflightChecksError(failedStatus, [check('egress', 'failed')])).toEqual({
        code: 'InternalServerError',
        message: 'inflight check egress failed',
      });
    });

    it('no failed check listed: the provision error itself', () => {
      expect(inflightChecksError(failedStatus, [check('egress', 'passed')])).toEqual({
        code: 'OCM4001',
        message: 'Inflight checks failed',
      });
    });
  });
});

describe('node pool state → operation status', () => {
  const np = (value: string, message?: string) => ({
    kind: 'NodePoolStatus' as const,
    state: { node_pool_state_value: value },
    ...(message === undefined ? {} : { message }),
  });
  const table: Array<[OperationRequest, OperationStatus, string, StatusDecision]> = [
    ['Create', 'Accepted', 'validating', KEEP],
    ['Create', 'Accepted', 'pending', KEEP],
    ['Update', 'Accepted', 'validating_update', KEEP],
    ['Update', 'Accepted', 'pending_update', KEEP],
    ['Create', 'Accepted', 'installing', set('Provisioning')],
    ['Create', 'Provisioning', 'ready', set('Succeeded')],
    ['Update', 'Accepted', 'updating', set('Updating')],
    ['Update', 'Updating', 'ready', set('Succeeded')],
    ['Delete', 'Deleting', 'ready', KEEP],
    ['Delete', 'Deleting', 'uninstalling', set('Deleting')],
    ['Create', 'Provisioning', 'uninstalling', KEEP],
    ['Create', 'Provisioning', 'updating', KEEP],
    ['Update', 'Updating', 'installing', KEEP],
    ['Create', 'Provisioning', 'scaling', { kind: 'retry-later', reason: 'unknown node pool state "scaling"' }],
    ['Create', 'Failed', 'ready', KEEP],
  ];
  it.each(table)('%s, currently %s, CS %s', (request, current, state, expected) => {
    expect(mapNodePoolStatus({ request, current, observation: { found: true, status: np(state) } })).toEqual(expected);
  });

  it.each(['error', 'recoverable_error'])('%s fails with the status message', (state) => {
    expect(
      mapNodePoolStatus({ request: 'Create', current: 'Provisioning', observation: { found: true, status: np(state, 'subnet is full') } }),
    ).toEqual({
      kind: 'set',
      status: 'Failed',
      error: { code: 'InternalServerError', message: 'subnet is full' },
    });
  });

  it('404 ends a Delete and is inconclusive otherwise', () => {
    expect(mapNodePoolStatus({ request: 'Delete', current: 'Deleting', observation: { found: false } })).toEqual({ kind: 'deleted' });
    expect(mapNodePoolStatus({ request: 'Create', current: 'Accepted', observation: { found: false } }).kind).toBe('retry-later');
  });
});
