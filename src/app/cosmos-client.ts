import { Agent } from 'node:https';
import { rootCertificates } from 'node:tls';
import { CosmosClient, type CosmosClientOptions, type PluginConfig } from '@azure/cosmos';
import { isLoopback } from '../config/load-config';
import type { OpstreamConfig } from '../config/config-types';
import { azureCredential, checkAzureIdentity } from '../auth/azure-credential';
import { cosmosAuthOf, leaseAuthOf, readCaFile, type CosmosAuth } from '../auth/cosmos-auth';
import { activeSpanContext, ATTR, failSpan, SpanKind, tracer } from '../tracing';
import { cosmosRequestKind, type CosmosRequestKind } from './cosmos-request-kind';

/**
 * The Cosmos client opstream uses, authenticated as `auth` says (the key, or the process's shared
 * Entra ID credential). Against a loopback endpoint (the local emulator) there is no region to fail
 * over to, so the background refresh and partition-level failover are off; endpoint discovery stays
 * on, so the client goes where the account read says, as on Azure. `caPem` adds trusted CA
 * certificates (`cosmos.caFile`) to the system's.
 * `onRequest` sees every network request the SDK sends (kind, status, and the request units the
 * answer's `x-ms-request-charge` states, 0 without one), through the SDK's request plugin hook — the
 * only place that sees retries and change-feed polls too.
 */
export type CosmosRequestObserver = (
  kind: CosmosRequestKind,
  status: number | 'error',
  requestCharge: number,
  request: CosmosRequestDetails,
) => void;

/** Which request it was, and for a refusal what the service said (the permission watch reads these). */
export interface CosmosRequestDetails {
  /** The container the path names; undefined for account and database requests. */
  container?: string;
  /** The SDK's operation type (`replace`, `create`, `query`, `read`, …). */
  operation?: string;
  /** `x-ms-substatus` of a failed answer. */
  substatus?: number;
  /** The service's message of a failed answer. */
  message?: string;
}

export interface CosmosClientExtras {
  onRequest?: CosmosRequestObserver;
  caPem?: string;
  /** Regions in the order requests should go to them (`cosmos.preferredLocations`). */
  preferredLocations?: readonly string[];
}

/** A key-authenticated client (the embedded default, benchmarks). */
export function keyAuth(endpoint: string, key: string): CosmosAuth {
  return { kind: 'key', endpoint, key, reason: 'local emulator key' };
}

export function createCosmosClient(auth: CosmosAuth, extras: CosmosClientExtras = {}): CosmosClient {
  const { endpoint } = auth;
  const local = isLoopback(new URL(endpoint).hostname);
  const options: CosmosClientOptions & { plugins?: PluginConfig[] } = {
    endpoint,
    ...(auth.kind === 'key' ? { key: auth.key } : { aadCredentials: azureCredential() }),
    ...(extras.caPem ? { agent: new Agent({ keepAlive: true, ca: [...rootCertificates, extras.caPem] }) } : {}),
    connectionPolicy: {
      ...(local
        ? { enableBackgroundEndpointRefreshing: false, enablePartitionLevelFailover: false, enablePartitionLevelCircuitBreaker: false }
        : {}),
      ...(extras.preferredLocations?.length ? { preferredLocations: [...extras.preferredLocations] } : {}),
    },
  };
  if (extras.onRequest) options.plugins = [{ on: 'request', plugin: countingPlugin(extras.onRequest) }];
  return new CosmosClient(options);
}

function countingPlugin(onRequest: CosmosRequestObserver): PluginConfig['plugin'] {
  return async (context, _diagnostics, next) => {
    const headers = (context.headers ?? {}) as Record<string, unknown>;
    const feedOptions = (context.options ?? {}) as Parameters<typeof cosmosRequestKind>[4];
    // The Cosmos SDK emits no spans of its own: each request made within a handling (a write-back,
    // a lock attempt, a read) is a client span here. Requests outside one (change-feed polls, lease
    // upkeep) make none: they would be a trace every few milliseconds.
    const attributes = cosmosAttributes(context.path);
    const request: CosmosRequestDetails = { container: attributes[ATTR.dbCollection], operation: context.operationType };
    const span = activeSpanContext()
      ? tracer.startSpan(`${context.operationType ?? 'request'} ${context.resourceType ?? ''}`.trim(), {
          kind: SpanKind.CLIENT,
          attributes,
        })
      : undefined;
    try {
      const response = await next(context);
      const kind = cosmosRequestKind(context.resourceType, context.operationType, headers, response.code, feedOptions);
      const charge = requestCharge(response.headers);
      onRequest(kind, response.code ?? 200, charge, request);
      span?.setAttributes({ [ATTR.dbStatus]: String(response.code ?? 200), [ATTR.cosmosRequestCharge]: charge });
      return response;
    } catch (err) {
      const {
        code,
        headers: answered,
        substatus,
        message,
      } = err as { code?: unknown; headers?: unknown; substatus?: unknown; message?: unknown };
      const status = typeof code === 'number' ? code : undefined;
      onRequest(
        cosmosRequestKind(context.resourceType, context.operationType, headers, status, feedOptions),
        status ?? 'error',
        requestCharge(answered),
        {
          ...request,
          ...(typeof substatus === 'number' ? { substatus } : {}),
          ...(typeof message === 'string' ? { message } : {}),
        },
      );
      if (span) {
        span.setAttribute(ATTR.dbStatus, String(status ?? 'error'));
        // A 409 on a lock create or a 412 on a guarded write is an answer the caller expects, not a failure of the request.
        if (status === undefined || status >= 500 || status === 429) failSpan(span, err);
      }
      throw err;
    } finally {
      span?.end();
    }
  };
}

/** Database attributes from the request path (`/dbs/{db}/colls/{container}/docs/{id}`). */
function cosmosAttributes(path: string | undefined): Record<string, string> {
  const segments = (path ?? '').split('/').filter(Boolean);
  const at = (name: string): string | undefined => {
    const i = segments.indexOf(name);
    return i >= 0 ? segments[i + 1] : undefined;
  };
  const out: Record<string, string> = { [ATTR.dbSystem]: 'azure.cosmosdb' };
  const db = at('dbs');
  const container = at('colls');
  if (db) out['db.namespace'] = db;
  if (container) out[ATTR.dbCollection] = container;
  return out;
}

/** The charge an answer states (the service's own figure, not an estimate); 0 when it states none. */
function requestCharge(headers: unknown): number {
  if (typeof headers !== 'object' || headers === null) return 0;
  const value = Number((headers as Record<string, unknown>)['x-ms-request-charge']);
  return Number.isFinite(value) && value > 0 ? value : 0;
}

/**
 * The configured account's client, ready to use: auth resolved (`cosmosAuthOf`), `cosmos.caFile`
 * read, and under Entra ID a first token obtained, so that a missing identity fails here with one
 * line (AzureIdentityError, exit 78) rather than as a failed request. The scopes are the ones the SDK
 * asks for: the account's own, then Cosmos DB's.
 */
const COSMOS_KEY_ALTERNATIVE =
  'use a key: set OPSTREAM_COSMOS_KEY_FILE (--cosmos-key-file), OPSTREAM_COSMOS_KEY (--cosmos-key) or OPSTREAM_COSMOS_CONNECTION_STRING (--cosmos-connection-string)';
const LEASES_KEY_ALTERNATIVE =
  'use a key: set OPSTREAM_LEASES_KEY_FILE (--leases-key-file), OPSTREAM_LEASES_KEY (--leases-key) or OPSTREAM_LEASES_CONNECTION_STRING (--leases-connection-string)';

export async function connectCosmos(
  config: OpstreamConfig,
  extras: Omit<CosmosClientExtras, 'caPem' | 'preferredLocations'> = {},
): Promise<{ client: CosmosClient; auth: CosmosAuth }> {
  return connectAccount(cosmosAuthOf(config), config, extras, COSMOS_KEY_ALTERNATIVE);
}

/**
 * The lease account's client when the leases live in another account (`leases.endpoint` or
 * `leases.connectionString`), connected as `connectCosmos` connects the main one; undefined otherwise.
 */
export async function connectLeaseCosmos(
  config: OpstreamConfig,
  extras: Omit<CosmosClientExtras, 'caPem' | 'preferredLocations'> = {},
): Promise<{ client: CosmosClient; auth: CosmosAuth } | undefined> {
  const auth = leaseAuthOf(config);
  return auth ? connectAccount(auth, config, extras, LEASES_KEY_ALTERNATIVE) : undefined;
}

async function connectAccount(
  auth: CosmosAuth,
  config: OpstreamConfig,
  extras: Omit<CosmosClientExtras, 'caPem' | 'preferredLocations'>,
  keyAlternative: string,
): Promise<{ client: CosmosClient; auth: CosmosAuth }> {
  const caPem = config.cosmos.caFile ? readCaFile(config.cosmos.caFile) : undefined;
  if (auth.kind === 'entra-id') {
    const account = auth.endpoint.replace(/\/+$/, '');
    await checkAzureIdentity(
      azureCredential(),
      [`${account}/.default`, 'https://cosmos.azure.com/.default'],
      `Cosmos DB at ${auth.endpoint}`,
      keyAlternative,
    );
  }
  return { client: createCosmosClient(auth, { ...extras, caPem, preferredLocations: preferredLocationsOf(config) }), auth };
}

/** `cosmos.preferredLocations` as a list (comma-separated, blanks around each name ignored). */
export function preferredLocationsOf(config: Pick<OpstreamConfig, 'cosmos'>): string[] {
  return (config.cosmos.preferredLocations ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}
