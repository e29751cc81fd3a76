/** The OCM shapes the simulator answers with, built from the store's records at read time. */
import type { Phase } from './lifecycle';
import { API_PREFIX, CLUSTERS_MGMT_PREFIX } from './ocm-errors';
import type { ClusterRecord, Json, NodePoolRecord } from './store';

export function clusterHref(id: string): string {
  return `${API_PREFIX}/clusters/${id}`;
}

export function nodePoolHref(clusterId: string, id: string): string {
  return `${clusterHref(clusterId)}/node_pools/${id}`;
}

export function credentialHref(clusterId: string, id: string): string {
  return `${CLUSTERS_MGMT_PREFIX}/clusters/${clusterId}/break_glass_credentials/${id}`;
}

export function externalAuthHref(clusterId: string, id: string): string {
  return `${clusterHref(clusterId)}/external_auth_config/external_auths/${id}`;
}

const DESCRIPTIONS: Record<Phase, string> = {
  pending: 'Preparing to install the cluster',
  validating: 'Running inflight checks',
  installing: 'Installation is in progress',
  ready: 'Cluster is ready',
  updating: 'Update is in progress',
  uninstalling: 'Uninstallation is in progress',
  error: 'Cluster provisioning failed',
  gone: 'Cluster was deleted',
};

export function timestamp(ms: number): string {
  return new Date(ms).toISOString();
}

/**
 * `state`, `description` and, in `error`, `provision_error_code` / `provision_error_message` (and
 * the error's description): the same in GET /clusters/{id}/status and in a Cluster's `status`
 * (single cluster and list items alike), as in OCM.
 */
function clusterStatusFields(record: ClusterRecord, phase: Phase): Json {
  const fields: Json = { state: phase, description: DESCRIPTIONS[phase] };
  if (phase === 'error' && record.error) {
    fields.provision_error_code = record.error.code;
    if (record.error.message !== undefined) fields.provision_error_message = record.error.message;
    if (record.error.description !== undefined) fields.description = record.error.description;
  }
  return fields;
}

export function clusterView(record: ClusterRecord, phase: Phase): Json {
  return {
    ...record.body,
    kind: 'Cluster',
    id: record.id,
    href: clusterHref(record.id),
    status: clusterStatusFields(record, phase),
    creation_timestamp: timestamp(record.lifecycle.createdAt),
  };
}

export function clusterStatusView(record: ClusterRecord, phase: Phase): Json {
  return {
    kind: 'ClusterStatus',
    id: record.id,
    href: `${clusterHref(record.id)}/status`,
    ...clusterStatusFields(record, phase),
  };
}

/** Planned checks when the cluster failed with them; otherwise the standard checks, passed once validation is over. */
export function inflightChecksView(record: ClusterRecord, phase: Phase): Json {
  const planned = phase === 'error' ? record.error?.inflightChecks : undefined;
  const finished = phase !== 'pending' && phase !== 'validating';
  const specs =
    planned ??
    ['egress', 'dns', 'network_security_group'].map((name) => ({ name, status: finished ? 'passed' : 'pending', error: undefined }));
  const items = specs.map((spec, i) => ({
    kind: 'InflightCheck',
    id: `${record.id}-${i + 1}`,
    href: `${clusterHref(record.id)}/inflight_checks/${record.id}-${i + 1}`,
    name: spec.name,
    status: spec.status,
    details: spec.error === undefined ? {} : { error: spec.error },
    restarts: 0,
  }));
  return { kind: 'InflightCheckList', page: 1, size: items.length, total: items.length, items };
}

/** A node pool with its status embedded (as OCM's node pools carry it), the same fields as its status call. */
export function nodePoolView(record: NodePoolRecord, phase: Phase): Json {
  return {
    ...record.body,
    kind: 'NodePool',
    id: record.id,
    href: nodePoolHref(record.clusterId, record.id),
    status: nodePoolStatusFields(record, phase),
    creation_timestamp: timestamp(record.lifecycle.createdAt),
  };
}

function nodePoolStatusFields(record: NodePoolRecord, phase: Phase): Json {
  const state = phase === 'error' && record.recoverable ? 'recoverable_error' : phase;
  const replicas = typeof record.body.replicas === 'number' ? record.body.replicas : 0;
  return {
    current_replicas: phase === 'ready' || phase === 'updating' ? replicas : 0,
    message: phase === 'error' ? (record.errorMessage ?? 'Node pool provisioning failed') : '',
    state: { node_pool_state_value: state },
  };
}

export function nodePoolStatusView(record: NodePoolRecord, phase: Phase): Json {
  return {
    kind: 'NodePoolStatus',
    id: record.id,
    href: `${nodePoolHref(record.clusterId, record.id)}/status`,
    ...nodePoolStatusFields(record, phase),
  };
}

export function listView(kind: string, items: Json[], page: number, size: number): Json {
  const start = (page - 1) * size;
  const slice = items.slice(start, start + size);
  return { kind, page, size: slice.length, total: items.length, items: slice };
}
