import type { Operation, Resource } from '../../../src/domain/types';
import {
  ProcessorWorld,
  T0,
  clusterArmId,
  clusterAtRest,
  clusterResource,
  csCluster,
  csClusterHref,
  csNodePoolHref,
  nodePoolArmId,
  nodePoolResource,
  operation,
  subscription,
  type Handling,
} from '../../helpers/processor-kit';
import { normal } from '../../helpers/processor-scenarios';
import type { CsFault, CsMethod } from '../../helpers/scripted-clusters-service';

/**
 * Processors are level-based: from the same documents and the same Clusters Service they decide
 * the same, whether it is this instance's first look, a second look after whatever it remembered
 * from the first (the follow's pacing memory), or the first look of another instance. Each state
 * below is handled three times from the same snapshot, and the decisions compared: what was
 * returned (pacing aside), the calls made to CS, the documents and CS afterwards.
 */
const CLUSTER = clusterArmId();
const NODE_POOL = nodePoolArmId();
const CS1 = csClusterHref();
const NP1 = csNodePoolHref();
const AGO_5S = new Date(T0 - 5_000).toISOString();

interface State {
  readonly name: string;
  readonly docs: ReadonlyArray<Parameters<ProcessorWorld['seed']>[0]>;
  readonly cs?: ReadonlyArray<ReturnType<typeof csCluster>>;
  readonly faults?: ReadonlyArray<readonly [CsMethod, CsFault]>;
}

const parent = clusterAtRest();
const np = (state: string): ReturnType<typeof csCluster> => csCluster('cs1', 'ready', { nodePools: [{ id: 'np1', state }] });
const clusterOp = (request: 'Create' | 'Update' | 'Delete', fields: Partial<Operation> = {}): Operation =>
  operation({ request, externalId: CLUSTER, ...fields });
const nodePoolOp = (request: 'Create' | 'Update' | 'Delete', fields: Partial<Operation> = {}): Operation =>
  operation({ request, externalId: NODE_POOL, ...fields });
const deletingCluster = (fields: Partial<Pick<Resource, 'internalId' | 'pendingInternalId'>> = {}): Resource =>
  clusterResource({ internalId: CS1, provisioningState: 'Deleting', ...fields });
const deletingNodePool = (fields: Partial<Pick<Resource, 'internalId'>> = {}): Resource =>
  nodePoolResource({ internalId: NP1, provisioningState: 'Deleting', ...fields });

const states: State[] = [
  { name: 'a fresh cluster create', docs: [clusterResource(), clusterOp('Create')] },
  {
    name: 'a cluster create with an id chosen before a crash',
    docs: [clusterResource({ pendingInternalId: csClusterHref('prev1') }), clusterOp('Create')],
  },
  { name: 'a cluster create CS already has', docs: [clusterResource(), clusterOp('Create')], cs: [csCluster('found1', 'installing')] },
  {
    name: 'a cluster create whose POST times out',
    docs: [clusterResource(), clusterOp('Create')],
    faults: [['createCluster', 'lost-answer']],
  },
  {
    name: 'a cluster create whose Resource has the CS id',
    docs: [clusterResource({ internalId: CS1 }), clusterOp('Create')],
    cs: [csCluster('cs1', 'installing')],
  },
  {
    name: 'a cluster create CS is installing',
    docs: [clusterResource({ internalId: CS1 }), clusterOp('Create', { internalId: CS1 })],
    cs: [csCluster('cs1', 'installing')],
  },
  {
    name: 'a cluster create CS finished',
    docs: [
      clusterResource({ internalId: CS1, provisioningState: 'Provisioning' }),
      clusterOp('Create', { internalId: CS1, status: 'Provisioning' }),
    ],
    cs: [csCluster('cs1', 'ready')],
  },
  {
    name: 'a cluster update to dispatch',
    docs: [clusterResource({ internalId: CS1 }), clusterOp('Update', { internalId: CS1 })],
    cs: [csCluster('cs1', 'ready')],
  },
  {
    name: 'a cluster update CS refuses for now',
    docs: [clusterResource({ internalId: CS1 }), clusterOp('Update', { internalId: CS1 })],
    cs: [csCluster('cs1', 'installing')],
  },
  { name: 'a cluster delete of a ready cluster', docs: [deletingCluster(), clusterOp('Delete')], cs: [csCluster('cs1', 'ready')] },
  {
    name: 'a cluster delete just written',
    docs: [
      deletingCluster(),
      clusterOp('Delete', { startTime: new Date(T0).toISOString(), lastTransitionTime: new Date(T0).toISOString() }),
    ],
    cs: [csCluster('cs1', 'ready')],
  },
  { name: 'a cluster delete CS is uninstalling', docs: [deletingCluster(), clusterOp('Delete')], cs: [csCluster('cs1', 'uninstalling')] },
  { name: 'a cluster delete CS finished', docs: [deletingCluster(), clusterOp('Delete')] },
  {
    name: 'a cluster delete whose DELETE is refused for now',
    docs: [deletingCluster(), clusterOp('Delete'), clusterOp('Create', { id: 'op-create' })],
    cs: [csCluster('cs1', 'ready')],
    faults: [['deleteCluster', '409']],
  },
  {
    name: 'a cluster delete with a leftover under the ARM name',
    docs: [deletingCluster(), clusterOp('Delete')],
    cs: [csCluster('stray1', 'ready', { azure: { tenant_id: 'other' } })],
  },
  {
    name: 'a cluster delete racing a create',
    docs: [
      deletingCluster({ internalId: '', pendingInternalId: CS1 }),
      clusterOp('Delete', { startTime: AGO_5S }),
      clusterOp('Create', { id: 'op-create' }),
    ],
  },
  { name: 'a node pool create', docs: [parent, nodePoolResource(), nodePoolOp('Create')], cs: [csCluster('cs1', 'ready')] },
  { name: 'a node pool create CS already has', docs: [parent, nodePoolResource(), nodePoolOp('Create')], cs: [np('installing')] },
  {
    name: 'a node pool create waiting for its cluster',
    docs: [clusterResource({ activeOperationId: 'op-c' }), nodePoolResource(), nodePoolOp('Create')],
  },
  {
    name: 'a node pool create CS is installing',
    docs: [parent, nodePoolResource({ internalId: NP1 }), nodePoolOp('Create', { internalId: NP1 })],
    cs: [np('installing')],
  },
  {
    name: 'a node pool update to dispatch',
    docs: [parent, nodePoolResource({ internalId: NP1 }), nodePoolOp('Update', { internalId: NP1 })],
    cs: [np('ready')],
  },
  {
    name: 'a node pool update CS is working on',
    docs: [
      parent,
      nodePoolResource({ internalId: NP1, provisioningState: 'Updating' }),
      nodePoolOp('Update', { internalId: NP1, status: 'Updating' }),
    ],
    cs: [np('updating')],
  },
  {
    name: 'a node pool delete of a ready node pool',
    docs: [parent, deletingNodePool(), nodePoolOp('Delete'), nodePoolOp('Update', { id: 'op-update' })],
    cs: [np('ready')],
  },
  { name: 'a node pool delete CS is uninstalling', docs: [parent, deletingNodePool(), nodePoolOp('Delete')], cs: [np('uninstalling')] },
  { name: 'a node pool delete CS finished', docs: [parent, deletingNodePool(), nodePoolOp('Delete')], cs: [csCluster('cs1', 'ready')] },
  {
    name: 'a node pool delete racing a create',
    docs: [parent, deletingNodePool({ internalId: '' }), nodePoolOp('Delete', { startTime: AGO_5S })],
    cs: [csCluster('cs1', 'ready')],
  },
];

/** What a handling decided, pacing aside: stripped of etags, timestamps and the random CS id. */
function decision(w: ProcessorWorld, h: Handling): string {
  const outcome =
    'error' in h
      ? { threw: h.error instanceof Error ? h.error.name : String(h.error) }
      : h.outcome.kind === 'again'
        ? { again: h.outcome.afterMs === 0 ? 'at once' : 'later', note: h.outcome.note }
        : { kind: h.outcome.kind };
  const strip = (docs: Array<Record<string, unknown>>): unknown[] =>
    docs.map(({ _etag: _e, _ts: _t, ...rest }) => rest).sort((a, b) => String(a.id).localeCompare(String(b.id)));
  return normal(
    JSON.stringify(
      {
        processor: h.processor,
        outcome,
        calls: w.cs.calls,
        operations: strip(w.operationDocs.all()),
        resources: strip(w.resourceDocs.all()),
        cs: w.cs.clusters.map((c) => ({ ...c, nodePools: [...c.nodePools.values()] })),
      },
      null,
      1,
    ),
  );
}

describe('processors remember no phase', () => {
  it.each(states)('$name is decided the same on a second look and by another instance', async (state) => {
    const w = new ProcessorWorld();
    w.seed(subscription(), ...state.docs);
    for (const c of state.cs ?? []) w.cs.addCluster(c);
    const start = w.snapshot();
    const look = async (): Promise<string> => {
      for (const [method, fault] of state.faults ?? []) w.cs.fail(method, fault);
      return decision(w, await w.handle());
    };

    const first = await look();
    w.restore(start);
    const again = await look(); // same instance, with what it kept from the first look
    w.restore(start);
    w.restart();
    const elsewhere = await look(); // another instance, knowing nothing

    expect(again).toBe(first);
    expect(elsewhere).toBe(first);
  });
});
