import { readFileSync } from 'node:fs';
import { ConfigError } from '../config/config-error';
import type { OpstreamConfig } from '../config/config-types';
import { cosmosStatus } from '../cosmos/errors';
import { OpstreamError } from '../domain/errors';
import { AzureIdentityError, identitySources, isIdentityFailure } from './azure-credential';

/**
 * How opstream authenticates to Cosmos DB, and why: the account key (`cosmos.key`, or the key of
 * `cosmos.connectionString`) when one is configured, Entra ID (DefaultAzureCredential) otherwise —
 * over https only: an http endpoint without a key is a configuration error (exit 78).
 */
export type CosmosAuth =
  { kind: 'key'; endpoint: string; key: string; reason: string } | { kind: 'entra-id'; endpoint: string; reason: string };

export function cosmosAuthOf(config: OpstreamConfig, env: NodeJS.ProcessEnv = process.env): CosmosAuth {
  const { connectionString, key, keyFile, endpoint } = config.cosmos;
  return accountAuth({ connectionString, key, keyFile, endpoint }, 'cosmos', env);
}

/**
 * The lease account's auth (`leases.endpoint` or `leases.connectionString`, the Functions trigger's
 * leaseConnection), by the same rules as the main account's; undefined when the leases live in the
 * main account (then its client serves them).
 */
export function leaseAuthOf(config: OpstreamConfig, env: NodeJS.ProcessEnv = process.env): CosmosAuth | undefined {
  const { connectionString, key, keyFile, endpoint } = config.leases;
  if (connectionString === undefined && endpoint === undefined) return undefined;
  return accountAuth({ connectionString, key, keyFile, endpoint }, 'leases', env);
}

interface AccountSettings {
  endpoint?: string;
  key?: string;
  keyFile?: string;
  connectionString?: string;
}

/** `group` names the settings (`cosmos` or `leases`) in every message. */
function accountAuth(settings: AccountSettings, group: 'cosmos' | 'leases', env: NodeJS.ProcessEnv): CosmosAuth {
  const { connectionString, key, keyFile, endpoint } = settings;
  const upper = group.toUpperCase();
  if (connectionString) {
    const parsed = parseConnectionString(connectionString, group);
    return { kind: 'key', ...parsed, reason: `${group}.connectionString is set: its AccountKey is used` };
  }
  if (!endpoint)
    throw new ConfigError(
      `setting ${group}.endpoint is required: set OPSTREAM_${upper}_ENDPOINT or pass --${group}-endpoint`,
      `${group}.endpoint`,
    );
  if (key) return { kind: 'key', endpoint, key, reason: `${group}.key is set` };
  if (keyFile) return { kind: 'key', endpoint, key: readKeyFile(keyFile, group), reason: `${group}.keyFile is set` };
  // The Azure SDK never sends a bearer token over http: every request would fail, retried for minutes.
  if (new URL(endpoint).protocol !== 'https:') {
    throw new ConfigError(
      `setting ${group}.endpoint (${endpoint}) is not https, and Entra ID tokens need https (the Azure SDK sends none over http): point OPSTREAM_${upper}_ENDPOINT at the account's https port, or use a key for a local emulator (OPSTREAM_${upper}_KEY, --${group}-key)`,
      `${group}.endpoint`,
    );
  }
  return {
    kind: 'entra-id',
    endpoint,
    reason: `neither ${group}.key, ${group}.keyFile nor ${group}.connectionString is set: Entra ID through DefaultAzureCredential (${identitySources(env)})`,
  };
}

/** A key file as Kubernetes mounts a Secret: the key alone, a trailing newline tolerated. Read once at start. */
function readKeyFile(file: string, group: 'cosmos' | 'leases'): string {
  let key: string;
  try {
    key = readFileSync(file, 'utf8').trim();
  } catch (err) {
    // A failed read (ENOENT, EACCES) says why in its message.
    const message = typeof (err as { message?: unknown })?.message === 'string' ? (err as Error).message : String(err);
    throw new ConfigError(`setting ${group}.keyFile (${file}): ${message} (OPSTREAM_${group.toUpperCase()}_KEY_FILE)`, `${group}.keyFile`);
  }
  if (key === '')
    throw new ConfigError(
      `setting ${group}.keyFile (${file}): the file is empty (OPSTREAM_${group.toUpperCase()}_KEY_FILE)`,
      `${group}.keyFile`,
    );
  return key;
}

/** `AccountEndpoint=https://…;AccountKey=…;` (keys case-insensitive, values may hold `=`). */
function parseConnectionString(text: string, group: 'cosmos' | 'leases' = 'cosmos'): { endpoint: string; key: string } {
  const fields = new Map<string, string>();
  for (const part of text.split(';')) {
    const i = part.indexOf('=');
    if (i > 0) fields.set(part.slice(0, i).trim().toLowerCase(), part.slice(i + 1).trim());
  }
  const endpoint = fields.get('accountendpoint');
  const key = fields.get('accountkey');
  if (!endpoint || !/^https?:\/\//.test(endpoint) || !key) {
    throw new ConfigError(
      `setting ${group}.connectionString must hold AccountEndpoint=https://…;AccountKey=…; (environment OPSTREAM_${group.toUpperCase()}_CONNECTION_STRING)`,
      `${group}.connectionString`,
    );
  }
  return { endpoint, key };
}

/** The extra CA certificates of `cosmos.caFile`, read once at start. */
export function readCaFile(file: string): string {
  try {
    const pem = readFileSync(file, 'utf8');
    if (!pem.includes('-----BEGIN CERTIFICATE-----')) throw new Error('no PEM certificate in it');
    return pem;
  } catch (err) {
    throw new ConfigError(
      `setting cosmos.caFile (${file}): ${err instanceof Error ? err.message : String(err)} (OPSTREAM_COSMOS_CA_FILE)`,
      'cosmos.caFile',
    );
  }
}

/** The data-plane role opstream's identity needs (reads, writes, queries, the change feed), named in every permission message. */
const DATA_ROLE = Object.freeze({ name: 'Cosmos DB Built-in Data Contributor', id: '00000000-0000-0000-0000-000000000002' });

/**
 * A refusal for want of a data-plane role: 403 with substatus 5301 (a metadata request) or 5302
 * (an item, query or change-feed request). Not 5300: that is a control-plane request, which no
 * data role allows.
 */
export function isMissingDataRole(status: number | undefined, substatus: number | undefined): boolean {
  return status === 403 && (substatus === 5301 || substatus === 5302);
}

/** The principal and the data action a refusal names (`principal [oid] … action [Microsoft.DocumentDB/…]`), when it does. */
export function refusalParts(message: string | undefined): { principal?: string; action?: string } {
  const principal = /principal \[([^\]]+)\]/.exec(message ?? '')?.[1];
  const action = /action \[([^\]]+)\]/.exec(message ?? '')?.[1];
  return { ...(principal ? { principal } : {}), ...(action ? { action } : {}) };
}

/** How to give the identity its data role: which role, at which scope, by Bicep or the Azure CLI. */
export function dataRoleFix(principal?: string): string {
  return (
    `assign the data role ${DATA_ROLE.name} (${DATA_ROLE.id}) to ${principal ? `principal ${principal}` : 'the identity'} at scope "/" (the whole account: the SDK reads its metadata too); ` +
    `deploy/azure/main.bicep assigns it, or az cosmosdb sql role assignment create -g <resource group> -a <account> --scope "/" --principal-id ${principal ?? '<principal object id>'} --role-definition-id ${DATA_ROLE.id}`
  );
}

/** Cosmos refused the credentials: a wrong key, or an identity without access. Exit 78. */
export class CosmosAccessDeniedError extends OpstreamError {
  readonly retriable = false;
  readonly exitCode = 78;
}

/**
 * A failure that is the identity's or the key's fault, as one line naming the fix; anything else
 * unchanged. Under Entra ID a 403 with substatus 5301/5302 is a missing data-plane role assignment.
 */
export function authFailure(auth: CosmosAuth, err: unknown): unknown {
  const cause = err instanceof Error && err.cause !== undefined && !isIdentityFailure(err) ? err.cause : err;
  if (err instanceof AzureIdentityError || err instanceof CosmosAccessDeniedError) return err;
  if (isIdentityFailure(cause))
    return new AzureIdentityError(
      `Entra ID gave no token for Cosmos DB at ${auth.endpoint}: ${String((cause as Error).message).split('\n')[0]}`,
      { cause },
    );
  const status = cosmosStatus(cause);
  if (status !== 401 && status !== 403) return err;
  const substatus = (cause as { substatus?: unknown }).substatus;
  const detail = `HTTP ${status}${typeof substatus === 'number' ? `, substatus ${substatus}` : ''}`;
  if (auth.kind === 'key') {
    return new CosmosAccessDeniedError(
      `Cosmos DB at ${auth.endpoint} refused the key (${detail}): check cosmos.key (OPSTREAM_COSMOS_KEY) or cosmos.connectionString; an account with local auth disabled takes Entra ID only (unset the key)`,
      { cause },
    );
  }
  const message = String((cause as Error).message ?? '').split('\n')[0];
  const fix =
    status === 403
      ? dataRoleFix(refusalParts(message).principal)
      : "the token is not valid for this account: check AZURE_CLIENT_ID / AZURE_TENANT_ID name an identity of the account's tenant";
  return new CosmosAccessDeniedError(`Cosmos DB at ${auth.endpoint} refused the Entra ID token (${detail}: ${message}): ${fix}`, { cause });
}
