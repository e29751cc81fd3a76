import type { TokenCredential } from '@azure/core-auth';
import { ServiceBusClient, isServiceBusError, type ServiceBusClientOptions } from '@azure/service-bus';

/**
 * How opstream reaches a Service Bus namespace: a connection string (SAS key; development and
 * namespaces with local auth), or the namespace's name and the process's Entra ID credential (the
 * one Cosmos DB uses). `endpoint` is where to connect when that is not the namespace's own host (a
 * private endpoint, the local stand-in's AMQPS port): the SDK's `customEndpointAddress`.
 */
export type ServiceBusAccess =
  | { kind: 'connection-string'; connectionString: string; endpoint?: string }
  | { kind: 'entra-id'; namespace: string; credential: TokenCredential; endpoint?: string; identity: string };

/** The only place opstream builds a ServiceBusClient: every receiver, publisher and tap goes through it. */
export function createServiceBusClient(access: ServiceBusAccess, options: ServiceBusClientOptions = {}): ServiceBusClient {
  const withEndpoint: ServiceBusClientOptions = access.endpoint ? { ...options, customEndpointAddress: access.endpoint } : options;
  return access.kind === 'entra-id'
    ? new ServiceBusClient(access.namespace, access.credential, withEndpoint)
    : new ServiceBusClient(access.connectionString, withEndpoint);
}

/** The namespace's host, for logs and messages (never the key). */
export function namespaceHost(access: ServiceBusAccess): string {
  if (access.kind === 'entra-id') return access.namespace;
  return /Endpoint=sb:\/\/([^/;:]+)/i.exec(access.connectionString)?.[1] ?? 'the namespace';
}

/**
 * The error that says what happened: the SDK throws an AggregateError (empty message) of every attempt
 * when a retryable failure came before the last one; the last attempt's error is the one to report.
 */
export function lastAttemptError(err: unknown): unknown {
  return err instanceof AggregateError && err.errors.length > 0 ? lastAttemptError(err.errors[err.errors.length - 1]) : err;
}

export type ServiceBusRight = 'Send' | 'Listen';

const DATA_ROLE: Record<ServiceBusRight, string> = { Send: 'Azure Service Bus Data Sender', Listen: 'Azure Service Bus Data Receiver' };

/**
 * What the operator does about a refusal (UnauthorizedAccess) of `right` on `entity`, as one clause;
 * '' for other errors. Names the role to assign under Entra ID, the setting to fix under a key.
 */
export function accessFix(access: ServiceBusAccess, err: unknown, right: ServiceBusRight, entity: string): string {
  const error = lastAttemptError(err);
  if (!isServiceBusError(error) || error.code !== 'UnauthorizedAccess') return '';
  const ns = namespaceHost(access);
  if (access.kind === 'entra-id') {
    return (
      `the identity (${access.identity}) lacks the ${right} right on ${entity}: assign it the ${DATA_ROLE[right]} role on namespace ${ns} ` +
      `(az role assignment create --role "${DATA_ROLE[right]}" --assignee <client id> --scope <namespace resource id>)`
    );
  }
  if (/LocalAuthDisabled/.test(error.message)) {
    return `namespace ${ns} has local (SAS) auth disabled: set serviceBus.namespace (OPSTREAM_SERVICE_BUS_NAMESPACE) instead of serviceBus.connectionString (OPSTREAM_SERVICE_BUS_CONNECTION_STRING), and give the identity the ${DATA_ROLE[right]} role`;
  }
  return `the key lacks the ${right} right on ${entity}: check serviceBus.connectionString (OPSTREAM_SERVICE_BUS_CONNECTION_STRING)`;
}
