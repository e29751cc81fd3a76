import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cosmosAuthOf, leaseAuthOf } from '../../../src/auth/cosmos-auth';
import { preferredLocationsOf } from '../../../src/app/cosmos-client';
import { containerIds, leaseDatabaseId, leaseLocation } from '../../../src/app/container-layout';
import { loadConfig } from '../../../src/config/load-config';
import type { CosmosClient } from '@azure/cosmos';

/**
 * The container names, the lease account and the preferred regions as settings (as the Functions
 * trigger's containerName, leaseContainerName, leaseDatabaseName, leaseConnection and
 * preferredLocations): defaults, what each selects, and the combinations refused at start.
 */
describe('container, lease account and region settings', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'opstream-keys-'));
    writeFileSync(join(dir, 'key'), 'bWFpbg==\n');
    writeFileSync(join(dir, 'lease-key'), 'bGVhc2U=');
    writeFileSync(join(dir, 'empty'), '\n');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('defaults to the containers opstream always had, the leases beside them', () => {
    const c = loadConfig({ env: {} });
    expect(containerIds(c)).toEqual({
      operations: 'Operations',
      resources: 'Resources',
      subscriptions: 'Subscriptions',
      locks: 'Locks',
      deadLetters: 'DeadLetters',
      leases: 'Leases',
    });
    expect(leaseDatabaseId(c)).toBe('opstream');
    const main = { client: {} as CosmosClient, entraId: false };
    expect(leaseLocation(c, main)).toBeUndefined();
    expect(leaseAuthOf(c)).toBeUndefined();
    expect(preferredLocationsOf(c)).toEqual([]);
  });

  it('takes every name from the environment, a lease database of its own in the same account, and a region list', () => {
    const c = loadConfig({
      env: {
        OPSTREAM_COSMOS_OPERATIONS_CONTAINER: 'Ops',
        OPSTREAM_COSMOS_DEAD_LETTERS_CONTAINER: 'Poison',
        OPSTREAM_LEASES_CONTAINER: 'leases',
        OPSTREAM_LEASES_DATABASE: 'coordination',
        OPSTREAM_COSMOS_PREFERRED_LOCATIONS: ' East US 2 , West US 2,North Europe ',
      },
    });
    expect(containerIds(c)).toMatchObject({ operations: 'Ops', deadLetters: 'Poison', leases: 'leases', resources: 'Resources' });
    const main = { client: {} as CosmosClient, entraId: true };
    expect(leaseLocation(c, main)).toEqual({ ...main, databaseId: 'coordination' });
    expect(preferredLocationsOf(c)).toEqual(['East US 2', 'West US 2', 'North Europe']);
  });

  it('authenticates a lease account by its own key, key file or connection string, else Entra ID over https', () => {
    const env = (more: Record<string, string>) =>
      loadConfig({ env: { OPSTREAM_COSMOS_ENDPOINT: 'https://main.documents.azure.com:443/', ...more } });
    expect(
      leaseAuthOf(env({ OPSTREAM_LEASES_ENDPOINT: 'http://127.0.0.1:8082/', OPSTREAM_LEASES_KEY_FILE: join(dir, 'lease-key') }), {}),
    ).toEqual({
      kind: 'key',
      endpoint: 'http://127.0.0.1:8082/',
      key: 'bGVhc2U=',
      reason: 'leases.keyFile is set',
    });
    expect(
      leaseAuthOf(env({ OPSTREAM_LEASES_CONNECTION_STRING: 'AccountEndpoint=https://l.documents.azure.com:443/;AccountKey=a2V5;' }), {}),
    ).toMatchObject({ kind: 'key', endpoint: 'https://l.documents.azure.com:443/', key: 'a2V5' });
    expect(leaseAuthOf(env({ OPSTREAM_LEASES_ENDPOINT: 'https://l.documents.azure.com:443/' }), {})).toMatchObject({
      kind: 'entra-id',
      endpoint: 'https://l.documents.azure.com:443/',
    });
    expect(() => leaseAuthOf(env({ OPSTREAM_LEASES_ENDPOINT: 'http://127.0.0.1:8082/' }), {})).toThrow(
      "setting leases.endpoint (http://127.0.0.1:8082/) is not https, and Entra ID tokens need https (the Azure SDK sends none over http): point OPSTREAM_LEASES_ENDPOINT at the account's https port, or use a key for a local emulator (OPSTREAM_LEASES_KEY, --leases-key)",
    );
  });

  it('reads cosmos.keyFile as Kubernetes mounts a Secret (the trailing newline dropped), and refuses an empty or missing one naming the setting', () => {
    const c = loadConfig({ env: { OPSTREAM_COSMOS_ENDPOINT: 'http://127.0.0.1:8081/', OPSTREAM_COSMOS_KEY_FILE: join(dir, 'key') } });
    expect(cosmosAuthOf(c, {})).toMatchObject({ kind: 'key', key: 'bWFpbg==', reason: 'cosmos.keyFile is set' });
    const empty = loadConfig({ env: { OPSTREAM_COSMOS_ENDPOINT: 'http://127.0.0.1:8081/', OPSTREAM_COSMOS_KEY_FILE: join(dir, 'empty') } });
    expect(() => cosmosAuthOf(empty, {})).toThrow(
      `setting cosmos.keyFile (${join(dir, 'empty')}): the file is empty (OPSTREAM_COSMOS_KEY_FILE)`,
    );
    const missing = loadConfig({
      env: { OPSTREAM_COSMOS_ENDPOINT: 'http://127.0.0.1:8081/', OPSTREAM_COSMOS_KEY_FILE: join(dir, 'nope') },
    });
    expect(() => cosmosAuthOf(missing, {})).toThrow(/^setting cosmos\.keyFile \(.*nope\): ENOENT.*\(OPSTREAM_COSMOS_KEY_FILE\)$/);
  });

  it.each([
    [
      { OPSTREAM_COSMOS_KEY: 'k', OPSTREAM_COSMOS_KEY_FILE: '/k' },
      'settings cosmos.key and cosmos.keyFile are both set: keep one (OPSTREAM_COSMOS_KEY or OPSTREAM_COSMOS_KEY_FILE)',
    ],
    [
      { OPSTREAM_COSMOS_CONNECTION_STRING: 'AccountEndpoint=http://a;AccountKey=k;', OPSTREAM_COSMOS_KEY_FILE: '/k' },
      'setting cosmos.connectionString names the endpoint and key itself: unset cosmos.keyFile (OPSTREAM_COSMOS_KEY_FILE), or unset OPSTREAM_COSMOS_CONNECTION_STRING',
    ],
    [
      { OPSTREAM_LEASES_KEY: 'k' },
      'setting leases.key is the key of a lease account of its own, and no lease account is configured: set leases.endpoint (OPSTREAM_LEASES_ENDPOINT), or unset it to keep the leases in the account of cosmos.endpoint',
    ],
    [{ OPSTREAM_LEASES_KEY_FILE: '/k' }, 'setting leases.keyFile is the key of a lease account of its own'],
    [
      { OPSTREAM_LEASES_CONNECTION_STRING: 'AccountEndpoint=http://a;AccountKey=k;', OPSTREAM_LEASES_ENDPOINT: 'http://b' },
      'setting leases.connectionString names the endpoint and key itself: unset leases.endpoint, or unset OPSTREAM_LEASES_CONNECTION_STRING',
    ],
    [
      { OPSTREAM_COSMOS_LOCKS_CONTAINER: 'Resources' },
      'settings cosmos.resourcesContainer and cosmos.locksContainer both name container "Resources"',
    ],
    [
      { OPSTREAM_LEASES_CONTAINER: 'Operations' },
      'settings cosmos.operationsContainer and leases.container both name container "Operations"',
    ],
    [
      { OPSTREAM_COSMOS_OPERATIONS_CONTAINER: 'a/b' },
      'setting cosmos.operationsContainer (environment OPSTREAM_COSMOS_OPERATIONS_CONTAINER) must be a container name without /, \\, # or ?, such as Operations',
    ],
    [
      { OPSTREAM_COSMOS_PREFERRED_LOCATIONS: 'East US;West US' },
      'setting cosmos.preferredLocations (environment OPSTREAM_COSMOS_PREFERRED_LOCATIONS) must be a comma-separated list of Azure region names, such as East US 2,West US 2',
    ],
  ])('refuses %j', (env, message) => {
    expect(() => loadConfig({ env })).toThrow(message);
  });

  it('lets the lease container share a name with another container when it is in another database or account', () => {
    expect(containerIds(loadConfig({ env: { OPSTREAM_LEASES_CONTAINER: 'Operations', OPSTREAM_LEASES_DATABASE: 'other' } })).leases).toBe(
      'Operations',
    );
    expect(
      containerIds(
        loadConfig({ env: { OPSTREAM_LEASES_CONTAINER: 'Operations', OPSTREAM_LEASES_ENDPOINT: 'https://l.documents.azure.com:443/' } }),
      ).leases,
    ).toBe('Operations');
  });
});
