import type { CsNodePool, CsNodePoolUpdateRequest, NodePoolProperties } from '../../src/kit';
import { desiredDifference } from '../kit/desired-difference';
import { drainGracePeriod, heldDrainGracePeriod } from '../kit/drain-grace-period';

type Taint = NonNullable<CsNodePoolUpdateRequest['taints']>[number];

/** Sent whole: a label the Resource no longer has must go from Clusters Service too; a period is its value with its unit. */
const WHOLE = ['labels', 'node_drain_grace_period'];

/**
 * The node pool's desired state in Clusters Service's shape: version, size (replicas, or the
 * autoscaling range when it autoscales: Clusters Service then owns the replica count), labels,
 * taints and node drain grace period. Labels and taints the Resource leaves out are none.
 */
function desiredNodePool(p: NodePoolProperties): CsNodePoolUpdateRequest {
  return {
    version: { id: p.version },
    ...(p.autoScaling ? { autoscaling: { min_replica: p.autoScaling.min, max_replica: p.autoScaling.max } } : { replicas: p.replicas }),
    labels: { ...p.labels },
    taints: sortedTaints(p.taints ?? []),
    node_drain_grace_period: drainGracePeriod(p.nodeDrainTimeoutMinutes),
  };
}

/**
 * What Clusters Service holds of the same fields, normalized as `desiredNodePool` writes them: also
 * the record a Succeeded operation leaves on the Resource (`clustersServiceState`) for the next Update.
 */
export function heldNodePool(np: CsNodePool): CsNodePoolUpdateRequest {
  return {
    ...(np.version && { version: { id: np.version.id } }),
    ...(np.replicas !== undefined && { replicas: np.replicas }),
    ...(np.autoscaling && { autoscaling: { min_replica: np.autoscaling.min_replica, max_replica: np.autoscaling.max_replica } }),
    labels: { ...np.labels },
    taints: sortedTaints(np.taints ?? []),
    node_drain_grace_period: heldDrainGracePeriod(np.node_drain_grace_period),
  };
}

/** The PATCH that brings Clusters Service's node pool to the Resource's desired state, or undefined when it is there. */
export function nodePoolDifference(p: NodePoolProperties, np: CsNodePool): CsNodePoolUpdateRequest | undefined {
  return desiredDifference(desiredNodePool(p), heldNodePool(np), WHOLE);
}

/**
 * The PATCH from the record the last Succeeded operation left on the Resource, or undefined when the
 * record shows nothing different (which the caller confirms with Clusters Service: the record may be
 * older than a change made elsewhere). Any JSON compares: a record that is not a node pool's makes the
 * difference the whole desired state, which is safe to send.
 */
export function nodePoolDifferenceFromRecord(p: NodePoolProperties, record: object): CsNodePoolUpdateRequest | undefined {
  return desiredDifference(desiredNodePool(p), record, WHOLE);
}

/** What a create sends beyond size and version: the labels, taints and drain grace period the Resource sets. */
export function createExtras(p: NodePoolProperties): Pick<CsNodePoolUpdateRequest, 'labels' | 'taints' | 'node_drain_grace_period'> {
  return {
    ...(p.labels && { labels: { ...p.labels } }),
    ...(p.taints && { taints: sortedTaints(p.taints) }),
    ...(p.nodeDrainTimeoutMinutes !== undefined && { node_drain_grace_period: drainGracePeriod(p.nodeDrainTimeoutMinutes) }),
  };
}

/** Taints in one order, an empty value left out: order and `""` against absent never differ. */
function sortedTaints(taints: readonly Taint[]): Taint[] {
  const key = (t: Taint): string => `${t.key}\u0000${t.effect}\u0000${t.value ?? ''}`;
  return taints
    .map((t) => ({ key: t.key, ...(t.value ? { value: t.value } : {}), effect: t.effect }))
    .sort((a, b) => key(a).localeCompare(key(b)));
}
