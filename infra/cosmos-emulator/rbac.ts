import { CosmosError } from './errors';
import type { RequestKind } from './counters';

/**
 * What a request needs under Entra ID, as Cosmos DB's data-plane RBAC decides it:
 * - creating, replacing or deleting databases and containers (and throughput) is control plane:
 *   no data-plane role covers it, an AAD token gets 403 substatus 5300 whatever its roles;
 * - everything else needs a data action of the principal's roles, else 403 with the substatus the
 *   service gives by kind of request: 5301 (RbacUnauthorizedMetadataRequest) when the action refused
 *   is readMetadata (account, database, container and partition key range reads: what a principal
 *   without any role fails on first), 5302 (RbacUnauthorizedNameBasedDataRequest) for an item, query
 *   or change-feed action on a container addressed by name (what a Data Reader fails on when it writes).
 */
export const SUBSTATUS_AAD_CONTROL_PLANE = 5300;
export const SUBSTATUS_RBAC_METADATA_DENIED = 5301;
export const SUBSTATUS_RBAC_DATA_DENIED = 5302;

const READER = '00000000-0000-0000-0000-000000000001';
const CONTRIBUTOR = '00000000-0000-0000-0000-000000000002';
const ROLE_IDS: Record<string, string> = {
  [READER]: READER,
  'cosmos db built-in data reader': READER,
  [CONTRIBUTOR]: CONTRIBUTOR,
  'cosmos db built-in data contributor': CONTRIBUTOR,
};

const PREFIX = 'Microsoft.DocumentDB/databaseAccounts';
const METADATA_ACTION = `${PREFIX}/readMetadata`;
const READ_ACTIONS = new Set([
  METADATA_ACTION,
  `${PREFIX}/sqlDatabases/containers/items/read`,
  `${PREFIX}/sqlDatabases/containers/executeQuery`,
  `${PREFIX}/sqlDatabases/containers/readChangeFeed`,
]);

export interface RbacRequest {
  method: string;
  segments: readonly string[];
  kind: RequestKind;
  isQuery: boolean;
}

/** A create/replace/delete of a database, container or offer: never allowed to an AAD token. */
export function isControlPlaneWrite(r: RbacRequest): boolean {
  if (r.kind !== 'metadata' || r.method === 'GET' || r.isQuery) return false;
  const s = r.segments;
  return (s[0] === 'dbs' && s.length <= 4) || s[0] === 'offers';
}

/** The data action a request needs (the names Cosmos DB's 403 messages carry). */
export function dataActionOf(r: RbacRequest): string {
  switch (r.kind) {
    case 'pointRead':
      return `${PREFIX}/sqlDatabases/containers/items/read`;
    case 'query':
    case 'queryPlan':
    case 'readFeed':
      return `${PREFIX}/sqlDatabases/containers/executeQuery`;
    case 'changeFeed':
      return `${PREFIX}/sqlDatabases/containers/readChangeFeed`;
    case 'write':
    case 'batch':
      return `${PREFIX}/sqlDatabases/containers/items/${r.method === 'DELETE' ? 'delete' : r.method === 'PUT' ? 'replace' : 'create'}`;
    default:
      return METADATA_ACTION;
  }
}

/** Throws the 403 Cosmos DB answers when `objectId` may not do `r`. `assignments` undefined = everyone contributes. */
export function authorizeDataAction(
  r: RbacRequest,
  objectId: string,
  account: string,
  assignments: Record<string, string[]> | undefined,
): void {
  const resource = `/${r.segments.slice(0, Math.min(r.segments.length, 4)).join('/')}`;
  if (isControlPlaneWrite(r)) {
    throw new CosmosError(
      403,
      'Forbidden',
      `Request blocked by Auth ${account} : Operation '${r.method}' on resource '${resource}' cannot be authorized by AAD token in data plane. ` +
        'Databases, containers and throughput are managed through Azure Resource Manager (Bicep, the Azure CLI, the portal).',
      SUBSTATUS_AAD_CONTROL_PLANE,
    );
  }
  if (assignments === undefined) return;
  const action = dataActionOf(r);
  const roles = (assignments[objectId] ?? []).map((role) => ROLE_IDS[role.toLowerCase()]).filter((id): id is string => id !== undefined);
  const allowed = roles.includes(CONTRIBUTOR) || (roles.includes(READER) && READ_ACTIONS.has(action));
  if (!allowed) {
    throw new CosmosError(
      403,
      'Forbidden',
      `Request blocked by Auth ${account} : Request is blocked because principal [${objectId}] does not have required RBAC permissions to perform action [${action}] on resource [${resource}]. ` +
        'Learn more: https://aka.ms/cosmos-native-rbac.',
      action === METADATA_ACTION ? SUBSTATUS_RBAC_METADATA_DENIED : SUBSTATUS_RBAC_DATA_DENIED,
    );
  }
}
