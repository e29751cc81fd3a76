import { diagnose, span } from '../../../src/inspect/explain/diagnosis';
import type { ExplainReport, OperationView } from '../../../src/inspect/explain/report';
import { SUPERSEDED } from '../../../src/pipeline/reconcile/superseded';
import { howToAsk } from '../../../src/inspect/explain/owner-hint';

const NOW = Date.parse('2026-12-01T12:00:00Z');
const ago = (ms: number): string => new Date(NOW - ms).toISOString();

function report(op: Partial<OperationView>, extra: Partial<ExplainReport> = {}): ExplainReport {
  const operation: OperationView = {
    id: 'op-1',
    subscriptionId: 'sub',
    request: 'Create',
    status: 'Provisioning',
    resourceId: '/subscriptions/sub/resourceGroups/rg/providers/Microsoft.RedHatOpenShift/hcpOpenShiftClusters/c1',
    startTime: ago(600_000),
    lastTransitionTime: ago(432_000),
    notification: { state: 'none' },
    ...op,
  };
  return { query: 'op-1', at: new Date(NOW).toISOString(), diagnosis: '', deadLetters: [], operation, ...extra };
}

const lease = {
  leaseToken: '20-30',
  range: { min: '20', max: '30' },
  owner: 'opstream-1',
  lastWrite: ago(1000),
  expired: false,
  expiresAt: ago(-29_000),
};

describe('the diagnosis of opstream explain', () => {
  it('says durations as people do', () => {
    expect([span(4000), span(432_000), span(180_000), span(7_500_000)]).toEqual(['4 s', '7 m 12 s', '3 m', '2 h 5 m']);
  });

  it('superseded: by which request and operation', () => {
    const r = report(
      { status: 'Canceled', error: { code: SUPERSEDED.code, message: SUPERSEDED.message }, lastTransitionTime: ago(120_000) },
      { activeOperation: { id: '9c1f3a07-0000-4000-8000-000000000000', request: 'Delete', status: 'Deleting' } },
    );
    expect(diagnose(r, NOW)).toBe('superseded by Delete 9c1f3a07… 2 m ago; no notification URI');
  });

  it('ended with ARM still to tell, or given up', () => {
    const pending = report({
      status: 'Failed',
      error: { code: 'InternalServerError', message: 'boom' },
      lastTransitionTime: ago(40_000),
      notification: { state: 'pending', claim: { owner: 'opstream-1#ab12', until: ago(-20_000) } },
    });
    expect(diagnose(pending, NOW)).toBe(
      `Failed 40 s ago (InternalServerError: boom); ARM notification pending (claimed by opstream-1 until ${ago(-20_000)})`,
    );
    const givenUp = report({
      status: 'Succeeded',
      lastTransitionTime: ago(180_000),
      notification: { state: 'given-up', givenUp: { reason: 'deadline', detail: 'every attempt failed', at: ago(1000) } },
    });
    expect(diagnose(givenUp, NOW)).toBe('Succeeded 3 m ago; ARM notification given up (deadline): every attempt failed');
  });

  it('ended and ARM told: when, after how many attempts, with what answer', () => {
    const sent = report({
      status: 'Succeeded',
      lastTransitionTime: ago(12_000),
      notification: { state: 'sent', delivery: { state: 'delivered', attempts: 3, at: ago(2000), httpStatus: 200, by: 'opstream-1#ab12' } },
    });
    expect(diagnose(sent, NOW)).toBe(`Succeeded 12 s ago; ARM told at ${ago(2000)} after 3 attempts (HTTP 200)`);
    const once = report({
      status: 'Succeeded',
      lastTransitionTime: ago(12_000),
      notification: { state: 'sent', delivery: { state: 'delivered', attempts: 1, at: ago(11_000), httpStatus: 202 } },
    });
    expect(diagnose(once, NOW)).toBe(`Succeeded 12 s ago; ARM told at ${ago(11_000)} after 1 attempt (HTTP 202)`);
  });

  it('ended and ARM delivery failing: the last answer, which attempt', () => {
    const failing = report({
      status: 'Failed',
      error: { code: 'InternalServerError', message: 'boom' },
      lastTransitionTime: ago(40_000),
      notification: {
        state: 'pending',
        target: 'https://management.azure.com',
        delivery: {
          state: 'failing',
          attempts: 2,
          at: ago(5000),
          httpStatus: 503,
          answer: 'https://management.azure.com answered HTTP 503: busy',
        },
      },
    });
    expect(diagnose(failing, NOW)).toBe(
      `Failed 40 s ago (InternalServerError: boom); ARM delivery failing: https://management.azure.com answered HTTP 503: busy, attempt 2 at ${ago(5000)}`,
    );
    const noAnswer = report({
      status: 'Succeeded',
      lastTransitionTime: ago(40_000),
      notification: { state: 'pending', delivery: { state: 'failing', attempts: 1, at: ago(5000) } },
    });
    expect(diagnose(noAnswer, NOW)).toBe(`Succeeded 40 s ago; ARM delivery failing: no answer, attempt 1 at ${ago(5000)}`);
    const givenUp = report({
      status: 'Succeeded',
      lastTransitionTime: ago(180_000),
      notification: {
        state: 'given-up',
        givenUp: { reason: 'rejected', detail: 'https://management.azure.com answered HTTP 400', at: ago(1000) },
        delivery: { state: 'failed', attempts: 4, at: ago(1000), httpStatus: 400 },
      },
    });
    expect(diagnose(givenUp, NOW)).toBe(
      'Succeeded 3 m ago; ARM notification given up (rejected): https://management.azure.com answered HTTP 400 (after 4 attempts)',
    );
  });

  it('a range nobody owns: released or expired', () => {
    expect(diagnose(report({}, { lease: { ...lease, owner: null, lastWrite: ago(10_000) } }), NOW)).toBe(
      'no instance owns range 20-30 (lease released 10 s ago)',
    );
    expect(diagnose(report({}, { lease: { ...lease, expired: true, expiresAt: ago(180_000) } }), NOW)).toBe(
      'no instance owns range 20-30 (lease expired 3 m ago; last owner opstream-1)',
    );
  });

  it('what the owner says: waiting on Clusters Service, since when, next check', () => {
    const state = {
      instance: 'opstream-1',
      at: ago(0),
      operationId: 'op-1',
      state: 'parked' as const,
      reason: 'clusters-service' as const,
      dueAt: ago(-4000),
      clustersService: { href: '/api/aro_hcp/v1alpha1/clusters/abc', state: 'installing', stateSince: ago(432_000) },
    };
    expect(diagnose(report({}, { lease, owner: { instance: 'opstream-1', state } }), NOW)).toBe(
      'waiting on Clusters Service: cluster installing for 7 m 12 s; next check in 4 s by opstream-1',
    );
  });

  describe("the owner's answer counts only when it is the owner's", () => {
    const owned = { ...lease, opsUrl: 'http://10.244.1.7:9464', opsHost: 'opstream-1' };
    const ask = howToAsk('opstream-1', 'opstream-1', owned.opsUrl);
    const absent = { instance: 'opstream-1', at: ago(0), operationId: 'op-1', state: 'absent' as const };

    it('names the port-forward and the --owner-url that reach the owner', () => {
      expect(ask).toBe(
        'ask opstream-1 itself: reach port 9464 of its host opstream-1 (on Kubernetes: kubectl port-forward pod/opstream-1 9464) and pass --owner-url http://127.0.0.1:9464',
      );
      expect(howToAsk('vm-1', undefined, undefined)).toContain('kubectl port-forward pod/<pod of vm-1> 9464');
    });

    it('match: the owner says it does not hold the operation', () => {
      const r = report({}, { lease: owned, owner: { instance: 'opstream-1', url: 'http://127.0.0.1:9464', state: absent } });
      expect(diagnose(r, NOW)).toBe(
        'opstream-1 owns range 20-30 but does not hold the operation: it lists active operations when it takes a range and every pipeline.relistIntervalMs',
      );
    });

    it('mismatch: another instance answered, and nothing of its answer is used', () => {
      const r = report(
        {},
        {
          lease: owned,
          owner: {
            instance: 'opstream-1',
            url: 'http://127.0.0.1:9464',
            answeredBy: 'opstream-0',
            error: "the ops server at http://127.0.0.1:9464 is opstream-0, not the lease's owner opstream-1: its answer is not used",
            ask,
          },
        },
      );
      const line = diagnose(r, NOW);
      expect(line).toBe(
        `owned by opstream-1 (lease renewed 1 s ago); not known what it does: opstream-0 answered instead, and its answer is not used; ${ask}`,
      );
      expect(line).not.toMatch(/does not hold/);
    });

    it('unreachable: says it does not know, that this says nothing of its health, and whom to ask', () => {
      const error = 'its ops server at http://127.0.0.1:9464 did not answer (ECONNREFUSED)';
      const r = report({}, { lease: owned, owner: { instance: 'opstream-1', url: 'http://127.0.0.1:9464', error, ask } });
      expect(diagnose(r, NOW)).toBe(
        `owned by opstream-1 (lease renewed 1 s ago); not known what it does, as it could not be asked from here (${error}), which says nothing about its health; ${ask}`,
      );
    });
  });
});
