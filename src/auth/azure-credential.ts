import {
  AggregateAuthenticationError,
  AuthenticationError,
  CredentialUnavailableError,
  DefaultAzureCredential,
  type TokenCredential,
} from '@azure/identity';
import { ConfigError } from '../config/config-error';
import { OpstreamError } from '../domain/errors';

/**
 * The one Entra ID credential of the process, shared by every Azure client opstream builds (Cosmos DB
 * and Service Bus): `DefaultAzureCredential`, which honours `AZURE_TOKEN_CREDENTIALS` and tries
 * environment (service principal), workload identity, managed identity, then developer tools (Azure CLI…).
 * One instance, so its token cache is shared too.
 */
let shared: TokenCredential | undefined;

export function azureCredential(): TokenCredential {
  if (shared) return shared;
  try {
    shared = new DefaultAzureCredential();
  } catch (err) {
    // Thrown for an AZURE_TOKEN_CREDENTIALS value it does not know.
    throw new ConfigError(`cannot set up the Azure identity: ${firstLine(err)} (environment AZURE_TOKEN_CREDENTIALS)`);
  }
  return shared;
}

/** No identity could give a token, or Entra ID refused it: fix the identity or configure a key. Exit 78. */
export class AzureIdentityError extends OpstreamError {
  readonly retriable = false;
  readonly exitCode = 78;
}

/** True for the failures of `@azure/identity` credentials (as opposed to the service refusing the token). */
export function isIdentityFailure(err: unknown): boolean {
  return err instanceof CredentialUnavailableError || err instanceof AuthenticationError || err instanceof AggregateAuthenticationError;
}

/**
 * Gets a token before any client needs one, so that a missing or wrong identity stops start-up with
 * one line naming the fix instead of surfacing as a failed Cosmos request. `scopes` in order: the
 * first one Entra ID grants wins (as the Cosmos SDK falls back to its default scope). `alternative`
 * ends the hint: how to reach `target` without Entra ID, naming its own settings.
 */
export async function checkAzureIdentity(
  credential: TokenCredential,
  scopes: string[],
  target: string,
  alternative: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<void> {
  let last: unknown;
  for (const scope of scopes) {
    try {
      if (await credential.getToken(scope)) return;
    } catch (err) {
      last = err;
      if (!/AADSTS500011/.test(firstLine(err))) break; // only "resource not found" moves on to the next scope
    }
  }
  throw new AzureIdentityError(
    `no Azure identity could get a token for ${target} (${identitySources(env)}): ${firstLine(last ?? 'no token')}; ` +
      `give the pod a workload identity (AZURE_CLIENT_ID, AZURE_TENANT_ID, AZURE_FEDERATED_TOKEN_FILE) or a managed identity, or ${alternative}`,
    { cause: last },
  );
}

/** Which identity the environment points DefaultAzureCredential at, for `config check` and errors. */
export function identitySources(env: NodeJS.ProcessEnv = process.env): string {
  const found: string[] = [];
  if (env.AZURE_TOKEN_CREDENTIALS) found.push(`AZURE_TOKEN_CREDENTIALS=${env.AZURE_TOKEN_CREDENTIALS}`);
  if (env.AZURE_CLIENT_SECRET || env.AZURE_CLIENT_CERTIFICATE_PATH)
    found.push('service principal (AZURE_CLIENT_SECRET / AZURE_CLIENT_CERTIFICATE_PATH)');
  if (env.AZURE_FEDERATED_TOKEN_FILE) found.push('workload identity (AZURE_FEDERATED_TOKEN_FILE)');
  if (env.IDENTITY_ENDPOINT) found.push('managed identity endpoint (IDENTITY_ENDPOINT)');
  if (env.AZURE_CLIENT_ID) found.push(`client id ${env.AZURE_CLIENT_ID} (AZURE_CLIENT_ID)`);
  return found.length > 0
    ? found.join(', ')
    : 'no identity variables set: managed identity (IMDS) or developer tools such as the Azure CLI';
}

function firstLine(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return (
    text
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l !== '') ?? text
  );
}
