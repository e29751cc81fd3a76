import { authFailure, cosmosAuthOf, CosmosAccessDeniedError, isMissingDataRole } from '../../../src/auth/cosmos-auth';
import { ConfigError } from '../../../src/config/config-error';
import { loadConfig } from '../../../src/config/load-config';

describe('Cosmos DB auth', () => {
  const config = (env: Record<string, string>) => loadConfig({ env });

  it('refuses Entra ID over http at once: the SDK would never send the token (exit 78, naming the ways out)', () => {
    let err: unknown;
    try {
      cosmosAuthOf(config({ OPSTREAM_COSMOS_ENDPOINT: 'http://127.0.0.1:8081/' }), {});
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect(err).toMatchObject({ exitCode: 78, setting: 'cosmos.endpoint' });
    expect((err as Error).message).toBe(
      "setting cosmos.endpoint (http://127.0.0.1:8081/) is not https, and Entra ID tokens need https (the Azure SDK sends none over http): point OPSTREAM_COSMOS_ENDPOINT at the account's https port, or use a key for a local emulator (OPSTREAM_COSMOS_KEY, --cosmos-key)",
    );
  });

  it('takes http with a key (the local emulator), and https without one as Entra ID', () => {
    expect(cosmosAuthOf(config({ OPSTREAM_COSMOS_ENDPOINT: 'http://127.0.0.1:8081/', OPSTREAM_COSMOS_KEY: 'a2V5' }), {})).toMatchObject({
      kind: 'key',
    });
    expect(cosmosAuthOf(config({ OPSTREAM_COSMOS_ENDPOINT: 'https://acct.documents.azure.com:443/' }), {})).toMatchObject({
      kind: 'entra-id',
    });
  });

  it('a missing data role is 403 with substatus 5301 or 5302, not 5300 (control plane) nor a bare 403', () => {
    expect([5301, 5302].map((s) => isMissingDataRole(403, s))).toEqual([true, true]);
    expect([isMissingDataRole(403, 5300), isMissingDataRole(403, undefined), isMissingDataRole(401, 5301)]).toEqual([false, false, false]);
  });

  it('a refused Entra ID token names the role to assign, the scope and the principal the service named', () => {
    const auth = cosmosAuthOf(config({ OPSTREAM_COSMOS_ENDPOINT: 'https://acct.documents.azure.com:443/' }), {});
    const refused = Object.assign(
      new Error(
        'Request blocked by Auth acct : Request is blocked because principal [oid-1] does not have required RBAC permissions to perform action [x] on resource [/].',
      ),
      { code: 403, substatus: 5301 },
    );
    const mapped = authFailure(auth, refused);
    expect(mapped).toBeInstanceOf(CosmosAccessDeniedError);
    expect((mapped as Error).message).toContain(
      'assign the data role Cosmos DB Built-in Data Contributor (00000000-0000-0000-0000-000000000002) to principal oid-1 at scope "/"',
    );
  });
});
