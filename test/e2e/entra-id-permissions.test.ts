import { mkdtempSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startClustersServiceSimulator, type ClustersServiceSimulator } from '@opstream/clusters-service-simulator';
import { startTokenService, type TokenService } from '@opstream/token-service';
import { CONTAINERS, ensureContainers, PARTITION_KEY_VERSION } from '../../src/cosmos';
import { runCli, spawnCli, type CliProcess } from '../helpers/cli';
import { startTestCosmos, type TestCosmos } from '../helpers/cosmos';
import { uniqueName, waitFor } from '../helpers/wait-for';

/**
 * A misconfigured replica under Entra ID says so instead of looking healthy doing nothing:
 * `opstream run` (the built CLI) against the HTTPS emulator trusting the local token service, each
 * scenario with its own principal, its data-plane roles set through the emulator's admin API:
 * - a Data Reader stops start-up with one line naming the role to assign and the scope (exit 78);
 * - a role taken away while running turns /readyz 503 with the reason, counts the refusals in
 *   `opstream_permission_denied_total{container}`, and /readyz is 200 again once the role is back;
 * - a missing database or container gets the Azure CLI commands and the Bicep template, never the
 *   switch that Entra ID would refuse.
 */
const READER = 'Cosmos DB Built-in Data Reader';
const CONTRIBUTOR_ID = '00000000-0000-0000-0000-000000000002';

interface Readiness {
  ready: boolean;
  checks: Record<string, { ok: boolean; detail?: string }>;
}

describe('opstream run under Entra ID with the wrong data role', () => {
  let ts: TokenService;
  let cosmos: TestCosmos;
  let cs: ClustersServiceSimulator;
  let caFile: string;

  beforeAll(async () => {
    ts = await startTokenService();
    cosmos = await startTestCosmos({ tls: true, entraId: { openIdConfigurationUrl: ts.openIdConfigurationUrl } });
    caFile = join(mkdtempSync(join(tmpdir(), 'opstream-rbac-')), 'emulator.pem');
    writeFileSync(caFile, cosmos.emu.caCertificate ?? '');
    cs = await startClustersServiceSimulator({ port: 0 });
  });
  afterAll(async () => {
    await cs?.close();
    await cosmos?.close();
    await ts?.close();
  });
  // Back to "every principal contributes" after each scenario.
  afterEach(() => setRoles(null));

  function setRoles(assignments: Record<string, string[]> | null): Promise<void> {
    return new Promise((resolve, reject) => {
      const req = request(
        `${cosmos.emu.endpoint}_admin/role-assignments`,
        { method: 'PUT', ca: cosmos.emu.caCertificate, headers: { authorization: `Bearer ${cosmos.emu.key}` } },
        (res) => {
          res.resume();
          if (res.statusCode === 200) resolve();
          else reject(new Error(`role assignments: HTTP ${res.statusCode}`));
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify(assignments));
    });
  }

  /** A database with every container, made with the key (as Bicep makes it in production). */
  async function provisionedDatabase(): Promise<string> {
    const databaseId = uniqueName('rbac');
    await ensureContainers(cosmos.client, databaseId, { create: true });
    return databaseId;
  }

  /** The settings of a run as `clientId`: no key, so Entra ID through the local token service's managed identity. */
  const env = (clientId: string, databaseId: string, extra: Record<string, string> = {}): Record<string, string> => ({
    OPSTREAM_COSMOS_ENDPOINT: cosmos.emu.endpoint,
    OPSTREAM_COSMOS_CA_FILE: caFile,
    OPSTREAM_COSMOS_DATABASE: databaseId,
    OPSTREAM_CLUSTERS_SERVICE_URL: cs.url,
    OPSTREAM_OPS_ADDR: '127.0.0.1:0',
    OPSTREAM_CHANGEFEED_LEASE_ACQUIRE_INTERVAL_MS: '300',
    OPSTREAM_CHANGEFEED_MAX_POLL_DELAY_MS: '100',
    AZURE_TOKEN_CREDENTIALS: 'ManagedIdentityCredential',
    ...ts.env(clientId),
    ...extra,
  });

  test('a Data Reader identity, or one without any role, stops start-up at once with one line naming the role to assign, the scope and the principal (exit 78)', async () => {
    const reader = ts.addPrincipal();
    await setRoles({ [reader.objectId]: [READER] });
    const databaseId = await provisionedDatabase();
    const started = Date.now();
    const result = await runCli(['run'], env(reader.clientId, databaseId));
    const elapsedMs = Date.now() - started;
    expect(result.code).toBe(78);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toBe(
      'opstream: this identity may not write to Leases, Operations, Locks, Resources, DeadLetters, where opstream writes leases, operations and locks; ' +
        'Cosmos DB refused Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers/items/replace (replace) on container Leases to this identity (HTTP 403, substatus 5302): ' +
        `assign the data role Cosmos DB Built-in Data Contributor (${CONTRIBUTOR_ID}) to principal ${reader.objectId} at scope "/" (the whole account: the SDK reads its metadata too); ` +
        `deploy/azure/main.bicep assigns it, or az cosmosdb sql role assignment create -g <resource group> -a <account> --scope "/" --principal-id ${reader.objectId} --role-definition-id ${CONTRIBUTOR_ID}`,
    );
    // Not minutes of retries: the refusal is final.
    expect(elapsedMs).toBeLessThan(20_000);
    // The leases were left as they were: the check writes nothing.
    const { resources } = await cosmos.client.database(databaseId).container(CONTAINERS.leases.id).items.readAll().fetchAll();
    expect(resources).toEqual([]);

    // No role at all: refused on its first metadata read (substatus 5301), the same fix.
    const nobody = ts.addPrincipal();
    const none = await runCli(['run'], env(nobody.clientId, databaseId));
    expect(none.code).toBe(78);
    expect(none.stderr.trim().split('\n')).toHaveLength(1);
    expect(none.stderr).toMatch(
      new RegExp(
        `^opstream: Cosmos DB at \\S+ refused the Entra ID token \\(HTTP 403, substatus 5301: .*\\): assign the data role Cosmos DB Built-in Data Contributor \\(${CONTRIBUTOR_ID}\\) to principal ${nobody.objectId} at scope "/"`,
      ),
    );
  });

  test('a role taken away while running: /readyz 503 with the reason, the refusals counted by container, and 200 again once the role is back', async () => {
    const principal = ts.addPrincipal();
    const databaseId = await provisionedDatabase();
    const run: CliProcess = spawnCli(
      ['run'],
      env(principal.clientId, databaseId, {
        OPSTREAM_CHANGEFEED_LEASE_RENEW_INTERVAL_MS: '300',
        OPSTREAM_CHANGEFEED_LEASE_EXPIRATION_MS: '2000',
      }),
    );
    try {
      const line = await run.waitForStderr((l) => / running; .*Ctrl-C stops$/.test(l), 60_000, 'that opstream runs');
      const opsUrl = /ops server (\S+);/.exec(line)?.[1];
      if (!opsUrl) throw new Error(`no ops server in: ${line}`);
      const readyz = async (): Promise<{ status: number; body: Readiness }> => {
        const res = await fetch(`${opsUrl}/readyz`);
        return { status: res.status, body: (await res.json()) as Readiness };
      };
      const deniedLeases = async (): Promise<number> => {
        const text = await (await fetch(`${opsUrl}/metrics`)).text();
        return Number(/^opstream_permission_denied_total\{container="Leases"\} (\d+)$/m.exec(text)?.[1] ?? NaN);
      };
      const ready = await waitFor(async () => ((await readyz()).status === 200 ? readyz() : undefined), {
        timeoutMs: 30_000,
        describe: () => '/readyz to be 200',
      });
      expect(ready.body.checks.permissions).toEqual({ ok: true, detail: 'no Cosmos DB request refused for want of a data role' });
      expect(await deniedLeases()).toBe(0);

      await setRoles({ [principal.objectId]: [READER] });
      // Its lease renewals are refused; the leases expire too, so no live instance owns one.
      const down = await waitFor(
        async () => {
          const r = await readyz();
          return r.status === 503 && r.body.checks.permissions?.ok === false && r.body.checks.changefeed?.ok === false ? r : undefined;
        },
        { timeoutMs: 30_000, describe: () => '/readyz to turn 503 for the refused writes and the expired leases' },
      );
      expect(down.body.checks.permissions.detail).toMatch(
        new RegExp(
          `^Cosmos DB refuses this identity replace on Leases \\(substatus 5302, \\d+x\\): assign the data role Cosmos DB Built-in Data Contributor \\(${CONTRIBUTOR_ID}\\) to principal ${principal.objectId} at scope "/"`,
        ),
      );
      expect(down.body.checks.changefeed.detail).toBe(
        'no lease is owned by a live instance: all 4 released or expired, so nothing reads the change feed',
      );
      expect(await deniedLeases()).toBeGreaterThanOrEqual(1);
      expect(run.child.exitCode).toBeNull(); // alive, unready: the pod leaves its Service, nothing is lost

      await setRoles(null);
      const back = await waitFor(async () => ((await readyz()).status === 200 ? readyz() : undefined), {
        timeoutMs: 30_000,
        describe: () => '/readyz to be 200 again',
      });
      expect(back.body.checks.permissions.ok).toBe(true);
      expect(back.body.checks.changefeed.detail).toBe('4 of 4 lease(s) held');
    } finally {
      if (run.child.exitCode === null) run.child.kill('SIGTERM');
    }
    expect((await run.exited).code).toBe(0);
  });

  test('a missing database or container: the Azure CLI commands (database too) and the Bicep template, never the switch Entra ID refuses', async () => {
    const principal = ts.addPrincipal();
    const missing = uniqueName('none');
    for (const command of [['run'], ['lag']]) {
      const result = await runCli(command, env(principal.clientId, missing));
      expect([command, result.code]).toEqual([command, 78]);
      const message = result.stderr.trim();
      expect(message.split('\n')).toHaveLength(1);
      expect(message).toContain(
        `opstream: Cosmos database "${missing}" does not exist, and under Entra ID opstream cannot create databases or containers`,
      );
      expect(message).toContain('deploy/azure/main.bicep');
      expect(message).toContain(`az cosmosdb sql database create -g <resource group> -a <account> -n ${missing}`);
      for (const spec of Object.values(CONTAINERS))
        expect(message).toContain(
          `az cosmosdb sql container create -g <resource group> -a <account> -d ${missing} -n ${spec.id} -p ${spec.partitionKeyPath} --partition-key-version ${PARTITION_KEY_VERSION}`,
        );
      expect(message).not.toMatch(/create-containers|CREATE_CONTAINERS/);
    }

    // A database with a container missing: that container's command, the template, no switch.
    const partial = await provisionedDatabase();
    await cosmos.client.database(partial).container(CONTAINERS.locks.id).delete();
    const result = await runCli(['run'], env(principal.clientId, partial));
    expect(result.code).toBe(78);
    expect(result.stderr).toContain(
      `container ${partial}/Locks does not exist (partition key /id (hash version 2), default TTL 10 s: az cosmosdb sql container create -g <resource group> -a <account> -d ${partial} -n Locks -p /id --partition-key-version 2 --ttl 10)`,
    );
    expect(result.stderr).toContain('Under Entra ID opstream cannot create databases or containers');
    expect(result.stderr).toContain('deploy/azure/main.bicep');
    expect(result.stderr).not.toMatch(/create-containers|CREATE_CONTAINERS/);
  });
});
