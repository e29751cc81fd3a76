import { ConfigError } from '../config/config-error';
import type { OpstreamConfig } from '../config/config-types';
import { namespaceHost, type ServiceBusAccess } from '../service-bus/service-bus-access';
import { azureCredential, checkAzureIdentity, identitySources } from './azure-credential';

/**
 * How opstream authenticates to Service Bus, and why (for start-up logs and `config check`; never a
 * secret): a SAS key from `serviceBus.connectionString`, or Entra ID for `serviceBus.namespace` with
 * the process's one credential. Undefined when no namespace is configured (the features are off).
 */
export interface ServiceBusAuth {
  kind: 'connection-string' | 'entra-id';
  namespace: string;
  endpoint?: string;
  reason: string;
}

/** The Entra ID audience of Service Bus. */
const SERVICE_BUS_SCOPE = 'https://servicebus.azure.net/.default';

const CONNECTION_STRING_ALTERNATIVE =
  'use a SAS key where the namespace allows local auth: set OPSTREAM_SERVICE_BUS_CONNECTION_STRING (--service-bus-connection-string) instead of OPSTREAM_SERVICE_BUS_NAMESPACE';

export function serviceBusAuthOf(config: OpstreamConfig, env: NodeJS.ProcessEnv = process.env): ServiceBusAuth | undefined {
  const { connectionString, namespace, endpoint } = config.serviceBus;
  const at = endpoint ? { endpoint } : {};
  if (connectionString !== undefined) {
    return {
      kind: 'connection-string',
      namespace: namespaceHost({ kind: 'connection-string', connectionString }),
      ...at,
      reason: 'serviceBus.connectionString is set: its SAS key is used',
    };
  }
  if (namespace !== undefined) {
    return {
      kind: 'entra-id',
      namespace,
      ...at,
      reason: `serviceBus.namespace is set: Entra ID through DefaultAzureCredential (${identitySources(env)})`,
    };
  }
  return undefined;
}

/** What every Service Bus client of this process is built from (createServiceBusClient); undefined when Service Bus is off. */
export function serviceBusAccessOf(config: OpstreamConfig, env: NodeJS.ProcessEnv = process.env): ServiceBusAccess | undefined {
  const { connectionString, namespace, endpoint } = config.serviceBus;
  const at = endpoint ? { endpoint } : {};
  if (connectionString !== undefined) return { kind: 'connection-string', connectionString, ...at };
  if (namespace !== undefined) {
    const identity = env.AZURE_CLIENT_ID ? `client id ${env.AZURE_CLIENT_ID}` : 'the one DefaultAzureCredential finds';
    return { kind: 'entra-id', namespace, credential: azureCredential(), identity, ...at };
  }
  return undefined;
}

/**
 * The access, ready to use: under Entra ID a first token for Service Bus obtained, so that a missing
 * identity stops start-up with one line naming the fix (AzureIdentityError, exit 78) rather than as
 * receivers and a publisher failing in the background.
 */
export async function connectServiceBus(
  config: OpstreamConfig,
  env: NodeJS.ProcessEnv = process.env,
): Promise<ServiceBusAccess | undefined> {
  const access = serviceBusAccessOf(config, env);
  if (access?.kind === 'entra-id') {
    await checkAzureIdentity(
      access.credential,
      [SERVICE_BUS_SCOPE],
      `Service Bus namespace ${access.namespace}`,
      CONNECTION_STRING_ALTERNATIVE,
      env,
    );
  }
  return access;
}

/** The SDK refused to build a client from the settings (it parses them then): which settings to fix. Its message never holds the key. */
export function unusableServiceBusSettings(access: ServiceBusAccess, err: unknown): ConfigError {
  const message = err instanceof Error ? err.message : String(err);
  if (access.kind === 'connection-string') {
    return new ConfigError(
      `setting serviceBus.connectionString (OPSTREAM_SERVICE_BUS_CONNECTION_STRING) is not usable: ${message}`,
      'serviceBus.connectionString',
    );
  }
  return new ConfigError(
    `settings serviceBus.namespace and serviceBus.endpoint (OPSTREAM_SERVICE_BUS_NAMESPACE, OPSTREAM_SERVICE_BUS_ENDPOINT) are not usable: ${message}`,
    'serviceBus.namespace',
  );
}
