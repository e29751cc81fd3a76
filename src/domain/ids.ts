/**
 * ARM resource ids and Clusters Service hrefs.
 *
 * ARM ids are case-insensitive: segment names (`subscriptions`, `resourceGroups`, provider, type)
 * match in any casing and two ids are equal when equal ignoring case. Values keep the casing the
 * caller used, except the subscription id used as partition key and lock id, which is lower-cased.
 * CS hrefs are lower-cased.
 */
import { InvalidIdError } from './errors';
import {
  CLUSTER_RESOURCE_TYPE,
  EXTERNAL_AUTH_RESOURCE_TYPE,
  NODE_POOL_RESOURCE_TYPE,
  RESOURCE_PROVIDER,
  type ResourceType,
} from './resource-types';

export interface ArmResourceId {
  /** The id exactly as given. */
  readonly id: string;
  /** Subscription id as given. */
  readonly subscriptionId: string;
  /** Lower-cased subscription id: the partition key of Operations/Resources and the lock id. */
  readonly partitionKey: string;
  readonly resourceGroupName: string;
  readonly clusterName: string;
  /** Present for a node pool. */
  readonly nodePoolName?: string;
  /** Present for an external auth. */
  readonly externalAuthName?: string;
  readonly resourceType: ResourceType;
  /** ARM id of the cluster (the id itself for a cluster), canonical segment casing. */
  readonly clusterResourceId: string;
}

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const CLUSTERS_SEGMENT = 'hcpOpenShiftClusters';
const NODE_POOLS_SEGMENT = 'nodePools';
const EXTERNAL_AUTHS_SEGMENT = 'externalAuths';
/** The child resources a cluster id may end with: ARM segment → resource type. */
const CHILD_TYPES: ReadonlyArray<readonly [string, ResourceType]> = [
  [NODE_POOLS_SEGMENT, NODE_POOL_RESOURCE_TYPE],
  [EXTERNAL_AUTHS_SEGMENT, EXTERNAL_AUTH_RESOURCE_TYPE],
];

function same(a: string | undefined, b: string): boolean {
  return a !== undefined && a.toLowerCase() === b.toLowerCase();
}

/** Lower-cases a subscription id after checking it is a GUID. */
export function subscriptionKey(subscriptionId: string): string {
  if (!GUID.test(subscriptionId)) throw new InvalidIdError('arm-resource-id', subscriptionId, 'a subscription id must be a GUID');
  return subscriptionId.toLowerCase();
}

/**
 * Parses `/subscriptions/{sub}/resourceGroups/{rg}/providers/Microsoft.RedHatOpenShift/hcpOpenShiftClusters/{name}`
 * with an optional `/nodePools/{np}` or `/externalAuths/{name}` tail. Throws InvalidIdError saying which part is wrong.
 */
export function parseArmResourceId(id: string): ArmResourceId {
  const fail = (reason: string): never => {
    throw new InvalidIdError('arm-resource-id', id, reason);
  };
  if (!id.startsWith('/')) fail('must start with "/subscriptions/"');
  const s = id.split('/').slice(1);
  if (!same(s[0], 'subscriptions') || !s[1]) fail('must start with "/subscriptions/{subscriptionId}"');
  if (!GUID.test(s[1])) fail('the subscription id must be a GUID');
  if (!same(s[2], 'resourceGroups') || !s[3]) fail('expected "/resourceGroups/{name}" after the subscription');
  if (!same(s[4], 'providers') || !same(s[5], RESOURCE_PROVIDER))
    fail(`expected "/providers/${RESOURCE_PROVIDER}" after the resource group`);
  if (!same(s[6], CLUSTERS_SEGMENT) || !s[7]) fail(`expected "/${CLUSTERS_SEGMENT}/{name}" after the provider`);
  let resourceType: ResourceType = CLUSTER_RESOURCE_TYPE;
  if (s.length > 8) {
    const child = CHILD_TYPES.find(([segment]) => same(s[8], segment));
    if (s.length !== 10 || !child || !s[9])
      fail(`only ${CHILD_TYPES.map(([segment]) => `"/${segment}/{name}"`).join(' or ')} may follow the cluster name`);
    resourceType = (child as readonly [string, ResourceType])[1];
  }
  const [, subscriptionId, , resourceGroupName, , , , clusterName] = s as [string, string, string, string, string, string, string, string];
  const childName = s[9];
  const clusterResourceId = `/subscriptions/${subscriptionId}/resourceGroups/${resourceGroupName}/providers/${RESOURCE_PROVIDER}/${CLUSTERS_SEGMENT}/${clusterName}`;
  return {
    id,
    subscriptionId,
    partitionKey: subscriptionId.toLowerCase(),
    resourceGroupName,
    clusterName,
    ...(resourceType === NODE_POOL_RESOURCE_TYPE ? { nodePoolName: childName } : {}),
    ...(resourceType === EXTERNAL_AUTH_RESOURCE_TYPE ? { externalAuthName: childName } : {}),
    resourceType,
    clusterResourceId,
  };
}

/** True when `id` parses as a cluster, node pool or external auth id. */
export function isArmResourceId(id: string): boolean {
  try {
    parseArmResourceId(id);
    return true;
  } catch {
    return false;
  }
}

/** ARM ids compare ignoring case. */
export function armIdEquals(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

/** Path prefix of the Clusters Service calls opstream makes (clusters, node pools, external auths). */
export const CS_API_PREFIX = '/api/aro_hcp/v1alpha1';
/** Clusters Service serves break-glass credentials under its clusters_mgmt API only. */
const CS_MGMT_API_PREFIX = '/api/clusters_mgmt/v1';

export interface CsHref {
  readonly href: string;
  readonly clusterId: string;
  /** Present for a node pool href. */
  readonly nodePoolId?: string;
  /** Present for a break-glass credential href. */
  readonly credentialId?: string;
  /** Present for an external auth href. */
  readonly externalAuthId?: string;
}

const ID = '([a-z0-9][a-z0-9-]*)';
const CS_HREF = new RegExp(`^/api/aro_hcp/v1alpha1/clusters/${ID}(?:/node_pools/${ID}|/external_auth_config/external_auths/${ID})?$`);
/** A cluster, or one of its break-glass credentials, as clusters_mgmt names them. */
const CS_MGMT_HREF = new RegExp(`^/api/clusters_mgmt/v1/clusters/${ID}(?:/break_glass_credentials/${ID})?$`);

/**
 * Parses a (lower-cased) CS href: a cluster, node pool or external auth under aro_hcp, or a cluster or break-glass
 * credential under clusters_mgmt (the frontend records a cluster's id either way).
 */
export function parseCsHref(href: string): CsHref {
  const mgmt = CS_MGMT_HREF.exec(href);
  if (mgmt) {
    const [, clusterId, credentialId] = mgmt as unknown as [string, string, string | undefined];
    return credentialId === undefined ? { href, clusterId } : { href, clusterId, credentialId };
  }
  const m = CS_HREF.exec(href);
  if (!m)
    throw new InvalidIdError(
      'cs-href',
      href,
      `expected ${CS_API_PREFIX}/clusters/{id}[/node_pools/{nodePool} | /external_auth_config/external_auths/{externalAuth}] or ${CS_MGMT_API_PREFIX}/clusters/{id}[/break_glass_credentials/{id}] in lower case`,
    );
  const [, clusterId, nodePoolId, externalAuthId] = m as unknown as [string, string, string | undefined, string | undefined];
  if (nodePoolId !== undefined) return { href, clusterId, nodePoolId };
  return externalAuthId === undefined ? { href, clusterId } : { href, clusterId, externalAuthId };
}

export function clusterHref(clusterId: string): string {
  return `${CS_API_PREFIX}/clusters/${clusterId}`;
}

export function nodePoolHref(clusterId: string, nodePoolId: string): string {
  return `${CS_API_PREFIX}/clusters/${clusterId}/node_pools/${nodePoolId}`;
}

export function externalAuthHref(clusterId: string, externalAuthId: string): string {
  return `${CS_API_PREFIX}/clusters/${clusterId}/external_auth_config/external_auths/${externalAuthId}`;
}

export function breakGlassCredentialHref(clusterId: string, credentialId: string): string {
  return `${CS_MGMT_API_PREFIX}/clusters/${clusterId}/break_glass_credentials/${credentialId}`;
}

/**
 * The Resources document id of an ARM resource: the ARM id lower-cased with `/` replaced by `|`
 * (Cosmos ids cannot hold `/`), so a reader can point-read a resource from its ARM id. Shared
 * convention with the frontend.
 */
export function resourceDocumentId(armId: string): string {
  return armId.toLowerCase().replace(/\//g, '|');
}
