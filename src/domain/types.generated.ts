/**
 * GENERATED from schemas/*.schema.json by src/schemas/generate.ts (npm run schemas:types).
 * Do not edit: change the schema and regenerate.
 */

/**
 * One ARM asynchronous operation (container Operations, partition key /partitionKey = the lower-cased subscription id, default TTL 7 days). Written by the frontend when it answers ARM (201/202), under the subscription lock and after the Resource document it acts on (Resources, same partition key, id = externalId lower-cased with every / replaced by |); then advanced by opstream only. `status` is tied to `request` (see `dependencies.request`). A document that breaks a rule is dead-lettered with the failing field. Other fields are kept by opstream's writes and otherwise ignored.
 */
export type Operation = CosmosSystemFields & {
  /**
   * The Operation document id: a fresh uuid, also the last segment (name) of `operationId`; ARM gets it as `name` in the notification.
   */
  id: string;
  /**
   * The lower-cased subscription id of `externalId` (the same partition as its Resource document).
   */
  partitionKey: string;
  /**
   * Caller's home tenant (header x-ms-home-tenant-id).
   */
  tenantId?: string;
  /**
   * Caller's object id (header x-ms-client-object-id).
   */
  clientId?: string;
  request: OperationRequest;
  /**
   * ARM resource id of the cluster or node pool, casing as in the request URL. opstream point-reads its Resource document by the id derived from it (lower-cased, every / replaced by |), and falls back to the Resource whose `resourceId` equals it (ignoring case).
   */
  externalId: string;
  /**
   * Clusters Service href of the cluster or node pool (lower-cased). Empty for a Create until opstream has dispatched it; for other requests, the Resource's internalId.
   */
  internalId?: string;
  /**
   * Required: the ARM id of the operation status resource, /subscriptions/{subscriptionId}/providers/Microsoft.RedHatOpenShift/locations/{location}/hcpOperationStatuses/{name}, as the frontend returned it to ARM (Azure-AsyncOperation); the ARM notification carries it as `id`.
   */
  operationId: string;
  /**
   * ARM's x-ms-correlation-request-id of the request that started the operation, when ARM sent one: printable ASCII, at most 256 characters (a document with anything else is dead-lettered). opstream puts it on every log line and span about the operation and sends it, as the same header, on every Clusters Service call and ARM notification made for it.
   */
  correlationRequestId?: string;
  /**
   * The caller's x-ms-client-request-id of the request that started the operation, when it sent one: printable ASCII, at most 256 characters; carried like correlationRequestId.
   */
  clientRequestId?: string;
  /**
   * Where ARM wants the terminal notification (header Azure-AsyncNotificationUri); omit it when ARM sent none. opstream POSTs once the operation is terminal, then clears it. It is not trusted to choose where opstream connects: only https to a host under notifications.allowedHostSuffixes whose addresses are all public is POSTed to (see docs/security.md); any other is cleared unsent and the reason recorded in notificationGivenUp, and the operation completes all the same.
   */
  notificationUri?: string;
  /**
   * Written by opstream, never by the frontend, when it clears notificationUri without having told ARM: why (uri, scheme, host or address: the URI was refused and nothing sent; redirect or rejected: ARM answered 3xx or a final 4xx; deadline: notifications.deadlineMs passed with every attempt failed), what it saw, and when. ARM still learns the status by polling the operation.
   */
  notificationGivenUp?: {
    reason: 'uri' | 'scheme' | 'host' | 'address' | 'redirect' | 'rejected' | 'deadline';
    /**
     * What was refused or answered, naming the target's origin only (never its path or query).
     */
    detail: string;
    /**
     * When opstream gave up (RFC 3339).
     */
    at: string;
  };
  /**
   * Written by opstream, never by the frontend: which opstream instance is delivering the ARM notification, until when. Another instance leaves the notification alone until `until` has passed, so two instances that both handle the operation (a lease moving) notify ARM once; removed with notificationUri.
   */
  notificationClaim?: {
    /**
     * The claiming instance: its name and a token unique to its process.
     */
    owner: string;
    /**
     * When the claim lapses (RFC 3339).
     */
    until: string;
  };
  /**
   * Written by opstream, never by the frontend: what became of the ARM notification's delivery attempts. delivered: ARM accepted it (written with the clearing of notificationUri, no write of its own); failing: the last attempt failed and another follows (one write per failed attempt); failed: ARM's answer was final or notifications.deadlineMs passed (notificationGivenUp says why). Absent while no attempt was made, when ARM asked for no notification, or when a target refused from its URI alone was never sent anything. `opstream explain` and the live page show it.
   */
  notificationDelivery?: {
    state: 'delivered' | 'failing' | 'failed';
    /**
     * Attempts made so far, this one included, by every opstream instance (a request that got no answer counts).
     */
    attempts: number;
    /**
     * When the last attempt ended (RFC 3339).
     */
    at: string;
    /**
     * ARM's HTTP status to the last attempt; absent when it did not answer (connection failure, timeout).
     */
    httpStatus?: number;
    /**
     * What went wrong with the last attempt (failing, failed): ARM's answer or the error, naming the target's origin only (never its path or query).
     */
    answer?: string;
    /**
     * The instance that made the last attempt.
     */
    by?: string;
  };
  /**
   * When the frontend accepted the request (RFC 3339).
   */
  startTime: string;
  /**
   * Last status change (RFC 3339): the frontend sets it to startTime, opstream on every status change; the ARM notification's endTime once terminal.
   */
  lastTransitionTime: string;
  /**
   * Tied to `request` (see `dependencies.request`): the frontend writes Accepted (Create, Update, RequestCredential, RevokeCredentials) or Deleting (Delete).
   */
  status: OperationStatus;
  error?: ArmError;
};
/**
 * What the ARM request asked for.
 */
export type OperationRequest = 'Create' | 'Update' | 'Delete' | 'RequestCredential' | 'RevokeCredentials';
/**
 * Operation status and resource provisioning state. Non-terminal: Accepted, Provisioning, Updating, Deleting. Terminal: Succeeded, Failed, Canceled.
 */
export type OperationStatus =
  'Accepted' | 'Provisioning' | 'Updating' | 'Deleting' | 'Succeeded' | 'Failed' | 'Canceled';
/**
 * One cluster, node pool or external auth (container Resources, partition key /partitionKey). `resourceType` selects the shape of `properties`.
 */
export type Resource = ClusterResource | NodePoolResource | ExternalAuthResource;
export type ClusterResource = ResourceBase & {
  resourceType: 'Microsoft.RedHatOpenShift/hcpOpenShiftClusters';
  properties: ClusterProperties;
};
/**
 * Fields every resource document has.
 */
export type ResourceBase = CosmosSystemFields & {
  /**
   * A Cosmos item id: non-empty, at most 255 characters, none of / \ ? #.
   */
  id: string;
  /**
   * A lower-cased Azure subscription id (GUID), used as partition key and lock id.
   */
  partitionKey: string;
  /**
   * ARM resource id, casing as in the request URL.
   */
  resourceId: string;
  resourceType: string;
  /**
   * Clusters Service href once known (lower-cased); empty before.
   */
  internalId?: string;
  /**
   * Clusters Service href chosen by the RP and persisted before calling CS create, so a crash between the CS call and the Cosmos write can be repaired.
   */
  pendingInternalId?: string;
  /**
   * Id of the Operation document currently acting on this resource; empty when none.
   */
  activeOperationId?: string;
  /**
   * Written by opstream: id of the Operation whose terminal status `provisioningState` holds (written with it, when `activeOperationId` is cleared). Only that Operation may be ended from the Resource after a crash between the two terminal writes.
   */
  lastOperationId?: string;
  provisioningState: OperationStatus;
  /**
   * Written by opstream with a Succeeded terminal status: what Clusters Service held, when that operation ended, of the fields opstream sets on this resource (in Clusters Service's shape). The next Update sends its difference from this record without reading Clusters Service first (its follow then checks what Clusters Service holds). Removed by every other terminal write.
   */
  clustersServiceState?: {
    [k: string]: unknown;
  };
  /**
   * A Create still non-terminal after this instant fails (default start + 60 min).
   */
  createOperationCompletionDeadline?: string;
  /**
   * A Delete still non-terminal after this instant fails (default start + 12 h).
   */
  deleteOperationCompletionDeadline?: string;
};
export type NodePoolResource = ResourceBase & {
  resourceType: 'Microsoft.RedHatOpenShift/hcpOpenShiftClusters/nodePools';
  properties: NodePoolProperties;
};
/**
 * An external authentication provider (OIDC) of a cluster: .../hcpOpenShiftClusters/{cluster}/externalAuths/{name}.
 */
export type ExternalAuthResource = ResourceBase & {
  resourceType: 'Microsoft.RedHatOpenShift/hcpOpenShiftClusters/externalAuths';
  properties: ExternalAuthProperties;
};
/**
 * ARM subscription state (container Subscriptions, partition key /id). The tenant used to search Clusters Service comes from here.
 */
export type Subscription = CosmosSystemFields & {
  /**
   * A lower-cased Azure subscription id (GUID), used as partition key and lock id.
   */
  id: string;
  state: 'Registered' | 'Unregistered' | 'Warned' | 'Deleted' | 'Suspended';
  /**
   * RFC 3339 date-time, at most 64 characters (the format itself allows any number of fractional digits).
   */
  registrationDate?: string;
  properties?: SubscriptionProperties;
};
/**
 * A subscription lock (container Locks, partition key /id, TTL on). Held while the document exists; renewed by replacing it with If-Match before `_ts + ttl`.
 */
export type Lock = CosmosSystemFields & {
  /**
   * Lower-cased subscription id.
   */
  id: string;
  /**
   * Who holds it (instance name); for diagnostics only.
   */
  owner: string;
  /**
   * RFC 3339 date-time, at most 64 characters (the format itself allows any number of fractional digits).
   */
  acquiredAt?: string;
};
/**
 * A document that could not be processed, with the reason (container DeadLetters, partition key /partitionKey, TTL on).
 */
export type DeadLetter = CosmosSystemFields & {
  /**
   * A Cosmos item id: non-empty, at most 255 characters, none of / \ ? #.
   */
  id: string;
  /**
   * Partition key of the source document when known (lower-cased subscription id), else "unknown".
   */
  partitionKey: string;
  source: DeadLetterSource;
  /**
   * validation: the document does not match its schema; processing: handling kept failing; publication: the Operation event of this version could not be published (larger than a Service Bus message may be, even with its free text cut, or not a valid event); unsupported: no processor of this build handles the Operation's resource type and request (left as it is in Cosmos DB).
   */
  reason: 'validation' | 'processing' | 'publication' | 'unsupported';
  error: DeadLetterError;
  attempts?: number;
  /**
   * RFC 3339 date-time, at most 64 characters (the format itself allows any number of fractional digits).
   */
  deadLetteredAt: string;
  /**
   * The source document as read; a copy cut to fit when `truncated` is present (see there).
   */
  document: {
    [k: string]: unknown;
  };
  truncated?: DeadLetterTruncation;
};
export type TerminalStatus = 'Succeeded' | 'Failed' | 'Canceled';
export type Taints = CsTaint[];
/**
 * @maxItems 64
 */
export type CsExternalAuthClients = CsExternalAuthClient[];

/**
 * Schema kind → the type of a value that passed validation of that kind.
 */
export interface SchemaCatalog {
  operation: Operation;
  resource: Resource;
  subscription: Subscription;
  lock: Lock;
  deadLetter: DeadLetter;
  armNotification: ArmNotification;
  csCluster: CsCluster;
  csClusterCreate: CsClusterCreateRequest;
  csClusterUpdate: CsClusterUpdateRequest;
  csClusterStatus: CsClusterStatus;
  csNodePool: CsNodePool;
  csNodePoolCreate: CsNodePoolCreateRequest;
  csNodePoolUpdate: CsNodePoolUpdateRequest;
  csNodePoolStatus: CsNodePoolStatus;
  csInflightCheck: CsInflightCheck;
  csBreakGlassCredential: CsBreakGlassCredential;
  csExternalAuth: CsExternalAuth;
  csExternalAuthCreate: CsExternalAuthCreateRequest;
  csExternalAuthUpdate: CsExternalAuthUpdateRequest;
  csListPage: CsListPage;
  csError: CsError;
  csEvent: CsEvent;
  operationEvent: OperationEvent;
  operationHint: OperationHint;
  operationState: OperationState;
  explainReport: ExplainReport;
}
/**
 * Properties Cosmos DB adds to every stored item, plus the per-item `ttl` override. Allowed on every document.
 */
export interface CosmosSystemFields {
  _etag?: string;
  _ts?: number;
  _rid?: string;
  _self?: string;
  _lsn?: number;
  _attachments?: string;
  /**
   * Seconds to live; -1 = never expire.
   */
  ttl?: number;
}
/**
 * ARM error body (`error` of an operation status). `details` nests further errors, e.g. under MultipleErrorsOccurred.
 */
export interface ArmError {
  code: string;
  message: string;
  target?: string;
  details?: ArmError[];
}
/**
 * What Clusters Service needs to create the cluster.
 */
export interface ClusterProperties {
  /**
   * OpenShift version id, e.g. 4.18.
   */
  version: string;
  /**
   * Azure region, e.g. eastus.
   */
  region: string;
  /**
   * Resource group CS creates the cluster's Azure resources in. Required by the create dispatch (checked there, so a missing one fails the operation instead of dead-lettering it).
   */
  managedResourceGroupName?: string;
  /**
   * ARM id of the subnet the cluster uses.
   */
  subnetId?: string;
  networkSecurityGroupId?: string;
  apiVisibility?: 'public' | 'private';
  network?: ClusterNetwork;
  /**
   * Minutes nodes are drained before they are replaced, across the cluster (0: no limit, ARO-HCP's default). Reaches Clusters Service as node_drain_grace_period.
   */
  nodeDrainTimeoutMinutes?: number;
  /**
   * CIDR blocks allowed to reach the API server; absent = everyone. Reaches Clusters Service as api.cidr_block_access.
   *
   * @minItems 1
   * @maxItems 500
   */
  authorizedCidrs?: [string, ...string[]];
  autoscaling?: ClusterAutoscaling;
}
export interface ClusterNetwork {
  networkType?: 'OVNKubernetes' | 'Other';
  podCidr?: string;
  serviceCidr?: string;
  machineCidr?: string;
  hostPrefix?: number;
}
/**
 * The cluster autoscaler's settings (Clusters Service's autoscaler); a field left out stays as Clusters Service has it.
 */
export interface ClusterAutoscaling {
  maxNodesTotal?: number;
  maxPodGracePeriodSeconds?: number;
  maxNodeProvisionTimeSeconds?: number;
  podPriorityThreshold?: number;
}
/**
 * What Clusters Service needs to create the node pool.
 */
export interface NodePoolProperties {
  version: string;
  /**
   * Node pool size.
   */
  replicas: number;
  vmSize?: string;
  subnetId?: string;
  autoRepair?: boolean;
  autoScaling?: {
    min: number;
    max: number;
  };
  /**
   * Kubernetes labels of the nodes; absent = none.
   */
  labels?: {
    [k: string]: string;
  };
  /**
   * Kubernetes taints of the nodes; absent = none.
   */
  taints?: NodePoolTaint[];
  /**
   * Minutes nodes are drained before they are replaced (0: no limit).
   */
  nodeDrainTimeoutMinutes?: number;
}
export interface NodePoolTaint {
  key: string;
  value?: string;
  effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
}
/**
 * The external auth as the frontend writes it (ARM's camelCase names); opstream sends it to Clusters Service as issuer, clients and claim.
 */
export interface ExternalAuthProperties {
  issuer: ExternalAuthIssuer;
  /**
   * @maxItems 64
   */
  clients?: ExternalAuthClient[];
  claim: ExternalAuthClaim;
}
/**
 * The token issuer: its URL (https), the audiences a token must name (at least one), and optionally the PEM bundle of its certificate authorities.
 */
export interface ExternalAuthIssuer {
  url: string;
  /**
   * @minItems 1
   * @maxItems 64
   */
  audiences: [string, ...string[]];
  ca?: string;
}
/**
 * An OIDC client of a cluster component (the console, the CLI).
 */
export interface ExternalAuthClient {
  component: {
    name: string;
    authClientNamespace: string;
  };
  clientId: string;
  /**
   * @maxItems 64
   */
  extraScopes?: string[];
  /**
   * ARM enum values compare ignoring case.
   */
  type: string;
}
export interface ExternalAuthClaim {
  mappings: {
    username: {
      claim: string;
      prefix?: string;
      prefixPolicy?: 'Prefix' | 'NoPrefix' | 'None' | '';
    };
    groups?: {
      claim: string;
      prefix?: string;
    };
  };
  /**
   * @maxItems 64
   */
  validationRules?: {
    type: 'RequiredClaim';
    requiredClaim: {
      claim: string;
      requiredValue: string;
    };
  }[];
}
export interface SubscriptionProperties {
  tenantId?: string;
  locationPlacementId?: string;
  quotaId?: string;
}
export interface DeadLetterSource {
  /**
   * The Cosmos container the document came from (Operations), or topic:{name} for an Operation event Service Bus could not take (its document is the event; id, partitionKey, lsn and etag name the Operation version it was derived from).
   */
  container: string;
  id?: string;
  partitionKey?: string;
  /**
   * Change-feed lease (feed range) that read it.
   */
  leaseToken?: string;
  /**
   * `_lsn` of the version dead-lettered (change-feed reads carry it).
   */
  lsn?: number;
  /**
   * `_etag` of the version dead-lettered: with `id` it names that version, and a replay writes over it only if it is still current.
   */
  etag?: string;
  /**
   * UTF-8 bytes of the source document's JSON text as read.
   */
  sizeBytes?: number;
}
export interface DeadLetterError {
  name: string;
  message: string;
  /**
   * JSON pointer of the failing field, for validation failures.
   */
  path?: string;
  code?: string;
}
/**
 * Present when `document` is not the whole source document: Cosmos refuses items over 2 MB and nesting deeper than 128 levels, so the copy keeps the identifying fields (id, partitionKey, _etag, _lsn, _ts) and what fits of the rest within about 1 MiB of JSON and 64 levels. Cut places are marked: a cut string ends with "…[truncated: N bytes]", a container nested too deep is "[truncated: nested deeper than N levels]", and a container missing members has a last member "$truncated" (an item for arrays) saying how many. Such a copy cannot be replayed as it is: the whole document is the source document, if still there.
 */
export interface DeadLetterTruncation {
  /**
   * UTF-8 bytes of the source document's JSON text.
   */
  originalBytes: number;
  /**
   * UTF-8 bytes of `document`.
   */
  keptBytes: number;
  /**
   * size: over the byte budget; depth: nested too deep; rejected: Cosmos refused the fuller copy (HTTP 400/413), only the identifying fields are kept.
   */
  cut: ('size' | 'depth' | 'rejected')[];
}
/**
 * Body POSTed to an operation's notificationUri once it is terminal.
 */
export interface ArmNotification {
  /**
   * The operation's operationId (ARM id of the operation status).
   */
  id: string;
  /**
   * The Operation document id.
   */
  name: string;
  status: TerminalStatus;
  /**
   * RFC 3339 date-time, at most 64 characters (the format itself allows any number of fractional digits).
   */
  startTime: string;
  /**
   * RFC 3339 date-time, at most 64 characters (the format itself allows any number of fractional digits).
   */
  endTime: string;
  error?: ArmError;
}
/**
 * A cluster as Clusters Service returns it (GET /clusters/{id}, POST /clusters, list items).
 */
export interface CsCluster {
  kind: 'Cluster';
  /**
   * A Clusters Service object id or node pool id: lower-case letters, digits and '-', starting with a letter or digit.
   */
  id: string;
  href: string;
  name?: string;
  region?: CsIdRef;
  version?: CsIdRef;
  azure?: CsClusterAzure;
  network?: CsClusterNetwork;
  api?: CsClusterApi;
  node_drain_grace_period?: CsNodeDrainGracePeriod;
  autoscaler?: CsClusterAutoscaler;
  status?: CsClusterEmbeddedStatus;
  creation_timestamp?: string;
}
/**
 * A reference to another object by id (region, version).
 */
export interface CsIdRef {
  id: string;
}
/**
 * The cluster's Azure identity. A cluster is found again after a crash by searching these fields.
 */
export interface CsClusterAzure {
  subscription_id: string;
  resource_group_name: string;
  resource_name: string;
  tenant_id: string;
  managed_resource_group_name: string;
  subnet_resource_id?: string;
  network_security_group_resource_id?: string;
}
export interface CsClusterNetwork {
  type?: string;
  machine_cidr?: string;
  service_cidr?: string;
  pod_cidr?: string;
  host_prefix?: number;
}
export interface CsClusterApi {
  listening?: 'external' | 'internal';
  cidr_block_access?: CsCidrBlockAccess;
}
/**
 * Who may reach the API server: everyone (allow_all) or the listed CIDR blocks only (allow_list).
 */
export interface CsCidrBlockAccess {
  allow: {
    mode: 'allow_all' | 'allow_list';
    /**
     * @maxItems 500
     */
    values?: string[];
  };
}
/**
 * How long nodes are drained before they are replaced (an OCM value; opstream writes the unit minutes).
 */
export interface CsNodeDrainGracePeriod {
  unit: string;
  value: number;
}
/**
 * The cluster autoscaler's settings.
 */
export interface CsClusterAutoscaler {
  pod_priority_threshold?: number;
  max_pod_grace_period?: number;
  /**
   * A duration such as 15m or 900s.
   */
  max_node_provision_time?: string;
  resource_limits?: {
    max_nodes_total?: number;
  };
}
/**
 * The status embedded in a cluster (list items too): the fields of GET /clusters/{id}/status.
 */
export interface CsClusterEmbeddedStatus {
  state?: string;
  description?: string;
  provision_error_code?: string;
  provision_error_message?: string;
}
/**
 * Body of POST /clusters. `id`, when given, is the id the caller chose (persisted before the call so the create can be recovered by search).
 */
export interface CsClusterCreateRequest {
  /**
   * A Clusters Service object id or node pool id: lower-case letters, digits and '-', starting with a letter or digit.
   */
  id?: string;
  name: string;
  region: CsIdRef;
  version: CsIdRef;
  azure: CsClusterAzure;
  network?: CsClusterNetwork;
  api?: CsClusterApi;
  node_drain_grace_period?: CsNodeDrainGracePeriod;
  autoscaler?: CsClusterAutoscaler;
}
/**
 * Body of PATCH /clusters/{id}: the fields to change.
 */
export interface CsClusterUpdateRequest {
  version?: CsIdRef;
  api?: CsClusterApi;
  node_drain_grace_period?: CsNodeDrainGracePeriod;
  autoscaler?: CsClusterAutoscaler;
}
/**
 * GET /clusters/{id}/status. `state` is kept a free string: an unknown state is a mapping decision (retry later), not a malformed response.
 */
export interface CsClusterStatus {
  kind?: 'ClusterStatus';
  id?: string;
  href?: string;
  state: string;
  description?: string;
  provision_error_code?: string;
  provision_error_message?: string;
}
/**
 * A node pool as Clusters Service returns it.
 */
export interface CsNodePool {
  kind: 'NodePool';
  /**
   * A Clusters Service object id or node pool id: lower-case letters, digits and '-', starting with a letter or digit.
   */
  id: string;
  href: string;
  replicas?: number;
  version?: CsIdRef;
  azure_node_pool?: CsAzureNodePool;
  auto_repair?: boolean;
  autoscaling?: CsNodePoolAutoscaling;
  labels?: CsLabels;
  taints?: Taints;
  node_drain_grace_period?: CsNodeDrainGracePeriod;
  status?: CsNodePoolEmbeddedStatus;
  creation_timestamp?: string;
}
export interface CsAzureNodePool {
  vm_size?: string;
  resource_name?: string;
  subnet_resource_id?: string;
}
export interface CsNodePoolAutoscaling {
  min_replica: number;
  max_replica: number;
}
/**
 * Kubernetes labels of a node pool's nodes.
 */
export interface CsLabels {
  [k: string]: string;
}
export interface CsTaint {
  key: string;
  value?: string;
  effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
}
/**
 * The status embedded in a node pool: the fields of GET /clusters/{id}/node_pools/{nodePool}/status.
 */
export interface CsNodePoolEmbeddedStatus {
  current_replicas?: number;
  message?: string;
  state?: CsNodePoolState;
}
export interface CsNodePoolState {
  node_pool_state_value: string;
}
/**
 * Body of POST /clusters/{id}/node_pools. `id` is the node pool name (unique within its cluster).
 */
export interface CsNodePoolCreateRequest {
  /**
   * A Clusters Service object id or node pool id: lower-case letters, digits and '-', starting with a letter or digit.
   */
  id: string;
  replicas?: number;
  version: CsIdRef;
  azure_node_pool?: CsAzureNodePool;
  auto_repair?: boolean;
  autoscaling?: CsNodePoolAutoscaling;
  labels?: CsLabels;
  taints?: Taints;
  node_drain_grace_period?: CsNodeDrainGracePeriod;
}
/**
 * Body of PATCH /clusters/{id}/node_pools/{nodePool}: the fields to change.
 */
export interface CsNodePoolUpdateRequest {
  replicas?: number;
  version?: CsIdRef;
  autoscaling?: CsNodePoolAutoscaling;
  auto_repair?: boolean;
  labels?: CsLabels;
  taints?: Taints;
  node_drain_grace_period?: CsNodeDrainGracePeriod;
}
/**
 * GET /clusters/{id}/node_pools/{nodePool}/status. The state value is a free string (unknown = retry later).
 */
export interface CsNodePoolStatus {
  kind?: 'NodePoolStatus';
  id?: string;
  href?: string;
  current_replicas?: number;
  message?: string;
  state: CsNodePoolState;
}
/**
 * One item of GET /clusters/{id}/inflight_checks. A failed check's `details.error` becomes an operation error message.
 */
export interface CsInflightCheck {
  kind?: 'InflightCheck';
  id?: string;
  href?: string;
  name: string;
  /**
   * pending, running, passed or failed.
   */
  status: string;
  details?: CsInflightCheckDetails;
  started_at?: string;
  ended_at?: string;
  restarts?: number;
}
export interface CsInflightCheckDetails {
  error?: string;
}
/**
 * A break-glass credential as Clusters Service returns it (POST, GET one, list items), under /api/clusters_mgmt/v1/clusters/{id}/break_glass_credentials. `kubeconfig` is a secret, present only on GET of one issued credential: never log it.
 */
export interface CsBreakGlassCredential {
  kind: 'BreakGlassCredential' | 'BreakGlassCredentialLink';
  /**
   * A break-glass credential id: lower-case letters, digits and '-', starting with a letter or digit.
   */
  id: string;
  href: string;
  username?: string;
  /**
   * Known values: created, issued, expired, awaiting_revocation, revoked, failed. Kept a bounded string: an unknown future state is a mapping decision (retry later), not a malformed response.
   */
  status: string;
  expiration_timestamp?: string;
  revocation_timestamp?: string;
  /**
   * Secret.
   */
  kubeconfig?: string;
}
/**
 * An external authentication provider (OIDC) of a cluster as Clusters Service returns it: /api/aro_hcp/v1alpha1/clusters/{id}/external_auth_config/external_auths/{id}. The definitions are shared with the create and update bodies.
 */
export interface CsExternalAuth {
  kind?: string;
  /**
   * The lower-cased ARM name of the external auth: lower-case letters, digits and '-', starting with a letter or digit.
   */
  id: string;
  href: string;
  issuer: CsExternalAuthIssuer;
  clients?: CsExternalAuthClients;
  claim?: CsExternalAuthClaim;
  status?: CsExternalAuthStatus;
}
export interface CsExternalAuthIssuer {
  url: string;
  /**
   * @maxItems 64
   */
  audiences: string[];
  /**
   * PEM bundle of the issuer's certificate authorities.
   */
  ca?: string;
}
export interface CsExternalAuthClient {
  component: CsExternalAuthClientComponent;
  id: string;
  /**
   * @maxItems 64
   */
  extra_scopes?: string[];
  type: 'public' | 'confidential';
}
export interface CsExternalAuthClientComponent {
  name: string;
  namespace: string;
}
export interface CsExternalAuthClaim {
  mappings: CsExternalAuthClaimMappings;
  /**
   * @maxItems 64
   */
  validation_rules?: CsExternalAuthValidationRule[];
}
export interface CsExternalAuthClaimMappings {
  username: CsExternalAuthUsernameMapping;
  groups?: CsExternalAuthGroupsMapping;
}
export interface CsExternalAuthUsernameMapping {
  claim: string;
  prefix?: string;
  /**
   * Empty when the RP says None.
   */
  prefix_policy?: 'Prefix' | 'NoPrefix' | '';
}
export interface CsExternalAuthGroupsMapping {
  claim: string;
  prefix?: string;
}
export interface CsExternalAuthValidationRule {
  claim: string;
  required_value: string;
}
export interface CsExternalAuthStatus {
  state: CsExternalAuthState;
  message?: string;
}
export interface CsExternalAuthState {
  /**
   * A free string in the model; known values include installing, ready, updating, uninstalling, error. An unknown one is a mapping decision, not a malformed response.
   */
  value: string;
  last_updated_timestamp?: string;
}
/**
 * Body of POST /clusters/{id}/external_auth_config/external_auths. `id` is the lower-cased ARM name (one external auth per name in a cluster).
 */
export interface CsExternalAuthCreateRequest {
  /**
   * The lower-cased ARM name of the external auth: lower-case letters, digits and '-', starting with a letter or digit.
   */
  id: string;
  issuer: CsExternalAuthIssuer;
  clients?: CsExternalAuthClients;
  claim?: CsExternalAuthClaim;
}
/**
 * Body of PATCH /clusters/{id}/external_auth_config/external_auths/{id}: the create body without `id`, the fields to change.
 */
export interface CsExternalAuthUpdateRequest {
  issuer?: CsExternalAuthIssuer;
  clients?: CsExternalAuthClients;
  claim?: CsExternalAuthClaim;
}
/**
 * One page of a Clusters Service list (GET /clusters?search=&page=&size=, inflight checks). Pages are 1-based; items are validated one by one against their own schema.
 */
export interface CsListPage {
  kind: string;
  page: number;
  size: number;
  total: number;
  items: {
    [k: string]: unknown;
  }[];
}
/**
 * An OCM error body. Only the HTTP status drives the backend; code and reason go into messages.
 */
export interface CsError {
  kind: 'Error';
  id?: string;
  href?: string;
  code: string;
  reason: string;
  operation_id?: string;
}
/**
 * A Clusters Service state change, published on the Service Bus topic clusters-service-events (JSON body, content type application/json). A hint only: the receiver reads the object's status before acting, so a lost, repeated, late or out-of-order event changes nothing but timing.
 */
export interface CsEvent {
  /**
   * What changed.
   */
  kind: 'Cluster' | 'NodePool' | 'BreakGlassCredential' | 'ExternalAuth';
  /**
   * CS id of the cluster (32 characters), or the id of the node pool (its name, at most 15), break-glass credential or external auth within its cluster. At most 64 characters.
   */
  id: string;
  /**
   * CS href of the object, as the create answered it (…/clusters/{id}, …/clusters/{id}/node_pools/{nodePool}, …/clusters/{id}/break_glass_credentials/{credential} or …/clusters/{id}/external_auth_config/external_auths/{externalAuth}: /api/clusters_mgmt/v1/clusters/{32 characters}/node_pools/{name} is under 100). At most 256 characters.
   */
  href: string;
  /**
   * The state the object's status call reports from now on (cluster `state`, node pool `node_pool_state_value`, credential `status`, external auth `status.state.value`), or `deleted` once it is gone (404). At most 64 characters (the longest CS state is under 30).
   */
  state: string;
  /**
   * When Clusters Service saw the change (RFC 3339). At most 64 characters.
   */
  time: string;
}
/**
 * One status transition of an Operation, as opstream publishes it on the Service Bus topic operation-events (JSON body, content type application/json): the operation's public view, without the caller's identity, the notification URI or opstream's own bookkeeping. Message properties: messageId = `{id}:{status}:{lastTransitionTime}` (`sha256:` and its hex SHA-256 past 128 characters; the same for every publication of one transition, so duplicate detection drops repeats), sessionId = the resource: the hex SHA-256 of the lower-cased resourceId (ARM ids may exceed the 128 characters a session id may have), application properties subscriptionId, resourceType, request, status.
 */
export interface OperationEvent {
  /**
   * The Operation document id (the last segment of operationId).
   */
  id: string;
  /**
   * The ARM id of the operation status resource, as ARM knows it.
   */
  operationId: string;
  /**
   * ARM id of the cluster or node pool the operation acts on (the Operation's externalId, casing as written).
   */
  resourceId: string;
  /**
   * ARM resource type of resourceId.
   */
  resourceType:
    | 'Microsoft.RedHatOpenShift/hcpOpenShiftClusters'
    | 'Microsoft.RedHatOpenShift/hcpOpenShiftClusters/nodePools'
    | 'Microsoft.RedHatOpenShift/hcpOpenShiftClusters/externalAuths';
  /**
   * The lower-cased subscription id (the Operation's partition key).
   */
  subscriptionId: string;
  /**
   * Clusters Service href of the object, once known.
   */
  internalId?: string;
  request: OperationRequest;
  status: OperationStatus;
  error?: ArmError;
  /**
   * When the frontend accepted the request.
   */
  startTime: string;
  /**
   * When the Operation took this status.
   */
  lastTransitionTime: string;
  /**
   * ARM's x-ms-correlation-request-id, when the Operation has one.
   */
  correlationRequestId?: string;
  /**
   * The caller's x-ms-client-request-id, when the Operation has one.
   */
  clientRequestId?: string;
}
/**
 * A wake-up hint, sent by a frontend that opts in on the Service Bus queue (or topic) operation-hints right after it wrote an Operation (JSON body, content type application/json). A hint only: the receiving instance reads the change feed of the range that holds `partitionKey` at once, and what it handles comes from the change feed, so a lost, repeated, late or wrong hint changes nothing but timing (a lost one costs at most the idle poll interval). Other fields are ignored.
 */
export interface OperationHint {
  /**
   * The Operation's partition key (the lower-cased subscription id): picks the feed range to read.
   */
  partitionKey: string;
  /**
   * The Operation document's `id`, for logs and traces.
   */
  operationId: string;
}
/**
 * What one opstream instance is doing with one operation: the answer of its ops server to GET /api/operations/{operationId} (bearer token as for the taps), read by `opstream explain`. Describes this instance's memory only; the documents in Cosmos DB stay the truth.
 */
export interface OperationState {
  /**
   * The answering instance (its processor.instanceName, the lease Owner it writes).
   */
  instance: string;
  /**
   * The instance's clock when it answered.
   */
  at: string;
  operationId: string;
  /**
   * absent: not held here (not queued, done, or its range is another instance's); queued: due, waiting for a worker; handling: a worker handles it now; parked: due again at dueAt (see reason).
   */
  state: 'absent' | 'queued' | 'handling' | 'parked';
  request?: OperationRequest;
  /**
   * The status as this instance last read or wrote it.
   */
  status?: OperationStatus;
  resourceId?: string;
  /**
   * The change-feed lease whose range brought the operation here.
   */
  leaseToken?: string;
  /**
   * RFC 3339 date-time, at most 64 characters (the format itself allows any number of fractional digits).
   */
  handlingSince?: string;
  /**
   * The handling in progress waits for its subscription lock, since then.
   */
  waitingForLockSince?: string;
  /**
   * When it is handled next (queued: already due).
   */
  dueAt?: string;
  /**
   * Queued behind a handling of another operation of the same resource (one at a time per resource).
   */
  behindSameResource?: boolean;
  /**
   * Why it is parked: clusters-service (waiting on Clusters Service, see clustersService), error (backoff after lastHandling.error), lock (the subscription lock was not acquired in time), notification (the ARM notification: claimed elsewhere, failed attempt, no free slot), other (see lastHandling.note).
   */
  reason?: 'clusters-service' | 'error' | 'lock' | 'notification' | 'other';
  /**
   * Handlings in a row that ended with an error (paces the backoff).
   */
  consecutiveErrors?: number;
  /**
   * Of those, the ones that count towards pipeline.maxHandlerAttempts (dependency outages do not).
   */
  countedAttempts?: number;
  lastHandling?: {
    /**
     * RFC 3339 date-time, at most 64 characters (the format itself allows any number of fractional digits).
     */
    at: string;
    result: 'done' | 'requeued' | 'retried' | 'failed' | 'abandoned';
    note?: string;
    error?: string;
  };
  /**
   * What the status follow last saw of the Clusters Service object it watches.
   */
  clustersService?: {
    href?: string;
    /**
     * As Clusters Service reported it (installing, ready, …; gone = 404).
     */
    state?: string;
    /**
     * Since when this instance has seen that state.
     */
    stateSince?: string;
    description?: string;
    /**
     * RFC 3339 date-time, at most 64 characters (the format itself allows any number of fractional digits).
     */
    lastCheckAt?: string;
  };
}
/**
 * What `opstream explain --json` prints: everything found about one operation. The documents are curated views (a notification URI shows its origin only); `owner.state` is the owner's answer (operation-state.schema.json). Validated before it is printed.
 */
export interface ExplainReport {
  /**
   * What was asked: an operation id or an ARM resource id.
   */
  query: string;
  /**
   * When explain looked (its clock).
   */
  at: string;
  /**
   * The one-line answer.
   */
  diagnosis: string;
  operation?: OperationView;
  /**
   * The Operation document fails its schema (it is then dead-lettered): the failing field.
   */
  invalidOperation?: {
    id: string;
    partitionKey?: string;
    field: string;
    message: string;
  };
  resource?: ResourceView;
  /**
   * The operation the Resource names as active, when it is another one (what superseded this one).
   */
  activeOperation?: {
    id: string;
    request: string;
    status: string;
  };
  lock?: LockView;
  deadLetters: DeadLetterView[];
  lease?: LeaseView;
  owner?: OwnerView;
  clustersService?: ClustersServiceView;
}
export interface OperationView {
  id: string;
  subscriptionId: string;
  request: string;
  status: string;
  resourceId: string;
  internalId?: string;
  startTime: string;
  lastTransitionTime: string;
  error?: {
    code: string;
    message: string;
    target?: string;
  };
  notification: NotificationView;
}
export interface NotificationView {
  /**
   * sent: ARM accepted the notification (see delivery); pending: ended, ARM still to tell (delivery, when present, says how the attempts so far failed); given-up: cleared unsent (see givenUp, and delivery when attempts were made); none: no notification URI (ARM asked for none, or it was sent before deliveries were recorded); later: sent once the operation ends.
   */
  state: 'sent' | 'pending' | 'given-up' | 'none' | 'later';
  /**
   * The Operation's notificationDelivery: the attempts made, the last one's time, ARM's HTTP status and answer.
   */
  delivery?: {
    state: 'delivered' | 'failing' | 'failed';
    attempts: number;
    at: string;
    httpStatus?: number;
    answer?: string;
    by?: string;
  };
  /**
   * Origin of notificationUri (never its path or query).
   */
  target?: string;
  claim?: {
    owner: string;
    until: string;
  };
  givenUp?: {
    reason: string;
    detail: string;
    at: string;
  };
}
export interface ResourceView {
  id: string;
  provisioningState: string;
  activeOperationId?: string;
  internalId?: string;
  pendingInternalId?: string;
}
export interface LockView {
  subscriptionId: string;
  held: boolean;
  owner?: string;
  acquiredAt?: string;
  /**
   * When Cosmos DB's TTL removes the lock unless its holder renews it.
   */
  expiresAt?: string;
}
export interface DeadLetterView {
  id: string;
  reason: string;
  at: string;
  error: {
    message: string;
    path?: string;
  };
}
export interface LeaseView {
  leaseToken: string;
  range: {
    min: string;
    max: string;
  };
  owner: string | null;
  lastWrite: string;
  expired: boolean;
  /**
   * When the lease expires unless renewed.
   */
  expiresAt: string;
  /**
   * Where the owner's ops server answers, as it wrote into the lease.
   */
  opsUrl?: string;
  /**
   * The host the owner runs on (its pod's name on Kubernetes), as it wrote into the lease.
   */
  opsHost?: string;
}
export interface OwnerView {
  /**
   * The lease's owner: the instance whose answer is used.
   */
  instance: string;
  url?: string;
  state?: OperationState;
  /**
   * Why there is no answer.
   */
  error?: string;
  /**
   * The instance that answered instead of the lease's owner (an address that reaches another instance, such as a port-forward to the wrong pod): its answer is not used.
   */
  answeredBy?: string;
  /**
   * How to reach the owner from here when its answer is missing or not its own: the port-forward to run and the --owner-url to pass.
   */
  ask?: string;
}
export interface ClustersServiceView {
  href: string;
  kind: 'cluster' | 'nodePool' | 'externalAuth' | 'breakGlassCredential';
  found?: boolean;
  state?: string;
  description?: string;
  error?: string;
}
