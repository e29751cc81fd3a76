import type { ClusterProperties, CsCluster, CsClusterUpdateRequest } from '../../src/kit';
import { desiredDifference } from '../kit/desired-difference';
import { drainGracePeriod, heldDrainGracePeriod } from '../kit/drain-grace-period';

type Autoscaler = NonNullable<CsClusterUpdateRequest['autoscaler']>;
type CidrBlockAccess = NonNullable<NonNullable<CsClusterUpdateRequest['api']>['cidr_block_access']>;

/** Sent whole: a mode change drops the list, a shorter list must not keep the old entries, a period is its value with its unit. */
const WHOLE = ['api.cidr_block_access', 'node_drain_grace_period'];

/**
 * The cluster's desired state in Clusters Service's shape: every property of the Resource that
 * Clusters Service lets change (version, node drain grace period, authorized CIDRs, autoscaler).
 * Autoscaler fields the Resource leaves out stay as Clusters Service has them.
 */
function desiredCluster(p: ClusterProperties): CsClusterUpdateRequest {
  const a = p.autoscaling;
  return {
    version: { id: p.version },
    node_drain_grace_period: drainGracePeriod(p.nodeDrainTimeoutMinutes),
    api: { cidr_block_access: cidrAccess(p.authorizedCidrs) },
    ...(a && {
      autoscaler: {
        ...(a.podPriorityThreshold !== undefined && { pod_priority_threshold: a.podPriorityThreshold }),
        ...(a.maxPodGracePeriodSeconds !== undefined && { max_pod_grace_period: a.maxPodGracePeriodSeconds }),
        ...(a.maxNodeProvisionTimeSeconds !== undefined && { max_node_provision_time: `${a.maxNodeProvisionTimeSeconds}s` }),
        ...(a.maxNodesTotal !== undefined && { resource_limits: { max_nodes_total: a.maxNodesTotal } }),
      },
    }),
  };
}

/** What Clusters Service holds of the same fields, normalized as `desiredCluster` writes them. */
function heldCluster(c: CsCluster): CsClusterUpdateRequest {
  const allow = c.api?.cidr_block_access?.allow;
  return {
    ...(c.version && { version: { id: c.version.id } }),
    node_drain_grace_period: heldDrainGracePeriod(c.node_drain_grace_period),
    api: { cidr_block_access: allow?.mode === 'allow_list' ? cidrAccess(allow.values ?? []) : cidrAccess(undefined) },
    ...(c.autoscaler && { autoscaler: heldAutoscaler(c.autoscaler) }),
  };
}

/** The PATCH that brings Clusters Service's cluster to the Resource's desired state, or undefined when it is there. */
export function clusterDifference(p: ClusterProperties, c: CsCluster): CsClusterUpdateRequest | undefined {
  return desiredDifference(desiredCluster(p), heldCluster(c), WHOLE);
}

/**
 * What a create sends beyond the cluster's identity: the changeable properties the Resource sets, so
 * that an Update finds them held (properties it leaves out keep Clusters Service's defaults).
 */
export function createExtras(p: ClusterProperties): Pick<CsClusterUpdateRequest, 'api' | 'node_drain_grace_period' | 'autoscaler'> {
  const desired = desiredCluster(p);
  return {
    ...(p.nodeDrainTimeoutMinutes !== undefined && { node_drain_grace_period: desired.node_drain_grace_period }),
    ...(p.authorizedCidrs && { api: desired.api }),
    ...(desired.autoscaler && { autoscaler: desired.autoscaler }),
  };
}

/** No list (or an empty one) lets everyone in; a list is kept sorted so that order alone never differs. */
function cidrAccess(cidrs: readonly string[] | undefined): CidrBlockAccess {
  return cidrs && cidrs.length > 0 ? { allow: { mode: 'allow_list', values: [...cidrs].sort() } } : { allow: { mode: 'allow_all' } };
}

function heldAutoscaler(a: Autoscaler): Autoscaler {
  const seconds = a.max_node_provision_time === undefined ? undefined : durationSeconds(a.max_node_provision_time);
  return { ...a, ...(seconds !== undefined && { max_node_provision_time: `${seconds}s` }) };
}

/** `15m`, `1h30m`, `900s` → seconds; undefined for anything else (then it differs, and is sent). */
function durationSeconds(duration: string): number | undefined {
  const parts = [...duration.matchAll(/(\d+)([hms])/g)];
  if (parts.length === 0 || parts.map((m) => m[0]).join('') !== duration) return undefined;
  return parts.reduce((sum, [, n, unit]) => sum + Number(n) * (unit === 'h' ? 3600 : unit === 'm' ? 60 : 1), 0);
}
