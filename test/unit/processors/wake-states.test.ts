import { mapClusterStatus, mapNodePoolStatus } from '../../../src/domain/cs-mapping';
import type { OperationRequest } from '../../../src/domain/types';
import type { CsClusterStatus, CsNodePoolStatus } from '../../../src/domain/types.generated';
import { clusterTarget } from '../../../processors/cluster/looks';
import { nodePoolTarget } from '../../../processors/node-pool/looks';

const HREF = '/api/aro_hcp/v1alpha1/clusters/c/node_pools/np';
const wakeStates = (kind: 'cluster' | 'nodePool', request: OperationRequest): readonly string[] =>
  (kind === 'cluster' ? clusterTarget(HREF, request) : nodePoolTarget(HREF, request)).wakeOn;

/** The states worth a check at once are exactly those in which the status mapping ends the operation. */
describe('the states each kind wakes on', () => {
  it.each([
    ['cluster', 'Create', ['ready', 'error']],
    ['cluster', 'Update', ['ready', 'error']],
    ['cluster', 'Delete', ['deleted', 'error']],
    ['nodePool', 'Create', ['ready', 'error', 'recoverable_error']],
    ['nodePool', 'Update', ['ready', 'error', 'recoverable_error']],
    ['nodePool', 'Delete', ['deleted', 'error', 'recoverable_error']],
  ] as const)('%s %s wakes on %j', (kind, request, states) => {
    expect([...wakeStates(kind, request)].sort()).toEqual([...states].sort());
  });

  const clusterStates = ['pending', 'validating', 'installing', 'ready', 'updating', 'uninstalling', 'error', 'deleted'];
  const nodePoolStates = [
    'pending',
    'validating',
    'installing',
    'ready',
    'updating',
    'uninstalling',
    'error',
    'recoverable_error',
    'deleted',
  ];
  const current = { Create: 'Provisioning', Update: 'Updating', Delete: 'Deleting' } as const;

  it.each(['Create', 'Update', 'Delete'] as const)('agrees with the status mapping for a %s', (request) => {
    const ends = (decision: { kind: string; status?: string }): boolean =>
      decision.kind === 'deleted' ||
      decision.kind === 'need-inflight-checks' ||
      (decision.kind === 'set' && ['Succeeded', 'Failed', 'Canceled'].includes(String(decision.status)));
    for (const state of clusterStates) {
      const observation = state === 'deleted' ? { found: false as const } : { found: true as const, status: { state } as CsClusterStatus };
      expect([state, wakeStates('cluster', request).includes(state)]).toEqual([
        state,
        ends(mapClusterStatus({ request, current: current[request], observation })),
      ]);
    }
    for (const state of nodePoolStates) {
      const observation =
        state === 'deleted'
          ? { found: false as const }
          : { found: true as const, status: { state: { node_pool_state_value: state } } as CsNodePoolStatus };
      expect([state, wakeStates('nodePool', request).includes(state)]).toEqual([
        state,
        ends(mapNodePoolStatus({ request, current: current[request], observation })),
      ]);
    }
  });
});
