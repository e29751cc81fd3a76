import { request } from 'node:https';
import { CosmosClient } from '@azure/cosmos';
import { ManagedIdentityCredential } from '@azure/identity';
import { startTokenService, type TokenService } from '@opstream/token-service';
import { emulatorClientOptions, startTestCosmos, type TestCosmos } from '../../helpers/cosmos';
import { uniqueName } from '../../helpers/wait-for';

/**
 * The emulator under Entra ID, through the real SDKs: `@azure/cosmos` with `aadCredentials` from
 * `@azure/identity`'s ManagedIdentityCredential, which gets its tokens from the local token service.
 * Each scenario uses its own principal: MSAL caches managed identity tokens process-wide per identity.
 */
describe('cosmos emulator: Entra ID tokens, data-plane RBAC and disableLocalAuth', () => {
  let ts: TokenService;
  let cosmos: TestCosmos;
  const dbId = uniqueName('aad');
  const saved = { IDENTITY_ENDPOINT: process.env.IDENTITY_ENDPOINT, IDENTITY_HEADER: process.env.IDENTITY_HEADER };
  const clients: CosmosClient[] = [];

  beforeAll(async () => {
    ts = await startTokenService();
    cosmos = await startTestCosmos({ tls: true, entraId: { openIdConfigurationUrl: ts.openIdConfigurationUrl } });
    Object.assign(process.env, ts.env());
    const { database } = await cosmos.client.databases.create({ id: dbId });
    await database.containers.create({ id: 'items', partitionKey: { paths: ['/pk'] } });
  });
  afterAll(async () => {
    for (const c of clients) c.dispose();
    await cosmos.close();
    await ts.close();
    for (const [k, v] of Object.entries(saved))
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
  });

  /** A client authenticated as a new principal (its object id returned too). */
  function aadClient(): { client: CosmosClient; objectId: string } {
    const principal = ts.addPrincipal();
    const { key: _key, ...options } = emulatorClientOptions(cosmos.emu);
    const client = new CosmosClient({ ...options, aadCredentials: new ManagedIdentityCredential({ clientId: principal.clientId }) });
    clients.push(client);
    return { client, objectId: principal.objectId };
  }

  async function setRoles(assignments: Record<string, string[]> | null): Promise<void> {
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        `${cosmos.emu.endpoint}_admin/role-assignments`,
        { method: 'PUT', ca: cosmos.emu.caCertificate, headers: { authorization: `Bearer ${cosmos.emu.key}` } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify(assignments));
    });
    expect(status).toBe(200);
  }

  afterEach(() => setRoles(null));

  test('a managed identity reads and writes items with a type=aad token, but creating a database or container is 403 substatus 5300', async () => {
    const { client } = aadClient();
    const items = client.database(dbId).container('items').items;
    await items.create({ id: 'a', pk: 'p' });
    const { resources } = await items.query('SELECT * FROM c').fetchAll();
    expect(resources.map((d: { id: string }) => d.id)).toContain('a');
    await expect(client.databases.create({ id: uniqueName('nope') })).rejects.toMatchObject({
      code: 403,
      substatus: 5300,
      message: expect.stringContaining('cannot be authorized by AAD token in data plane'),
    });
    await expect(client.database(dbId).containers.create({ id: 'other', partitionKey: { paths: ['/pk'] } })).rejects.toMatchObject({
      code: 403,
      substatus: 5300,
    });
    await expect(client.database(dbId).container('items').delete()).rejects.toMatchObject({ code: 403, substatus: 5300 });
    // reading metadata is data plane: allowed
    await expect(client.database(dbId).container('items').read()).resolves.toMatchObject({ resource: { id: 'items' } });
  });

  test('as the service answers: a principal without a role gets 403 substatus 5301 on metadata and 5302 on items; a Data Reader reads but its writes are 403 substatus 5302', async () => {
    const none = aadClient();
    const reader = aadClient();
    await setRoles({ [reader.objectId]: ['Cosmos DB Built-in Data Reader'] });
    // A metadata request (the container's definition) needs readMetadata: 5301; an item read needs items/read: 5302.
    await expect(none.client.database(dbId).container('items').read()).rejects.toMatchObject({
      code: 403,
      substatus: 5301,
      message: expect.stringContaining(
        `principal [${none.objectId}] does not have required RBAC permissions to perform action [Microsoft.DocumentDB/databaseAccounts/readMetadata] on resource [/dbs/${dbId}/colls/items]`,
      ),
    });
    await expect(none.client.database(dbId).container('items').item('a', 'p').read()).rejects.toMatchObject({
      code: 403,
      substatus: 5302,
      message: expect.stringContaining(
        `principal [${none.objectId}] does not have required RBAC permissions to perform action [Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers/items/read]`,
      ),
    });
    const readerItems = reader.client.database(dbId).container('items');
    const refused = (action: string) => (err: unknown) =>
      expect(err).toMatchObject({
        code: 403,
        substatus: 5302,
        message: expect.stringContaining(
          `principal [${reader.objectId}] does not have required RBAC permissions to perform action [Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers/items/${action}] on resource [/dbs/${dbId}/colls/items]`,
        ),
      });
    const wrote = (): never => {
      throw new Error('a Data Reader could write');
    };
    await readerItems.items.upsert({ id: 'r', pk: 'p' }).then(wrote, refused('create'));
    // Refused before the item is looked up: replacing or deleting one that does not exist is 403 too, not 404.
    await readerItems.item('absent', 'p').replace({ id: 'absent', pk: 'p' }).then(wrote, refused('replace'));
    await readerItems.item('absent', 'p').delete().then(wrote, refused('delete'));
    const { resources } = await readerItems.items.query('SELECT VALUE COUNT(1) FROM c').fetchAll();
    expect(resources[0]).toBeGreaterThanOrEqual(0);
    await expect(readerItems.item('absent', 'p').read()).resolves.toMatchObject({ statusCode: 404 });
  });

  test("an expired token is refused with 401, and the credential's next token works", async () => {
    const { client } = aadClient();
    ts.injectFault({ expired: true });
    const item = client.database(dbId).container('items').item('a', 'p');
    await expect(item.read()).rejects.toMatchObject({ code: 401, message: expect.stringContaining('expired') });
    await expect(item.read()).resolves.toMatchObject({ statusCode: 200 });
  });

  test('a token for another audience, from another issuer, or signed by an unpublished key is refused with 401', async () => {
    for (const [fault, text] of [
      [{ audience: 'https://management.azure.com' }, 'audience'],
      [{ issuer: 'https://sts.windows.net/someone-else/' }, 'issuer'],
      [{ unpublishedKey: true }, 'signature'],
    ] as const) {
      const { client } = aadClient();
      ts.injectFault(fault);
      await expect(client.database(dbId).container('items').item('a', 'p').read()).rejects.toMatchObject({
        code: 401,
        message: expect.stringContaining(text),
      });
    }
  });

  test("with local auth disabled, the master key is refused with the service's message while Entra ID still works", async () => {
    const strict = await startTestCosmos({
      tls: true,
      entraId: { openIdConfigurationUrl: ts.openIdConfigurationUrl },
      disableLocalAuth: true,
    });
    try {
      await expect(strict.client.databases.readAll().fetchAll()).rejects.toMatchObject({
        code: 401,
        message: expect.stringContaining('Local Authorization is disabled. Use an AAD token to authorize all requests.'),
      });
      const principal = ts.addPrincipal();
      const { key: _key, ...options } = emulatorClientOptions(strict.emu);
      const client = new CosmosClient({ ...options, aadCredentials: new ManagedIdentityCredential({ clientId: principal.clientId }) });
      clients.push(client);
      await expect(client.databases.readAll().fetchAll()).resolves.toMatchObject({ resources: [] });
    } finally {
      await strict.close();
    }
  });
});
