import { ClustersServiceClient, ClustersServiceClientError, isConflict, isNotFound } from '../../../src/clusters-service';
import { startClustersServiceSimulator, type ClustersServiceSimulator } from '@opstream/clusters-service-simulator';
import { createBody, failureOf, newClusterId, newIdentity } from './helpers';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Break-glass credentials through the real client, on a stepped clock: the simulator derives each
 * credential's status from its instants, so the test moves time and reads, with no waiting.
 */
describe('Clusters Service client against the simulator: break-glass credentials', () => {
  let now = 1_700_000_000_000;
  let sim: ClustersServiceSimulator;
  let cs: ClustersServiceClient;

  beforeAll(async () => {
    sim = await startClustersServiceSimulator({
      now: () => now,
      durations: { pendingMs: 0, validatingMs: 0, installingMs: 100, credentialIssueMs: 200, credentialRevokeMs: 300 },
    });
    // A page of one: listing two credentials takes every page.
    cs = new ClustersServiceClient({ baseUrl: sim.url, pageSize: 1 });
  });
  afterAll(() => sim.close());

  async function readyCluster(): Promise<string> {
    const id = newClusterId();
    await cs.createCluster(createBody(newIdentity(), id));
    now += 100;
    return id;
  }

  it('lives created → issued (kubeconfig only then) → awaiting_revocation → revoked; a second revoke resolves', async () => {
    const clusterId = await readyCluster();
    const requested = await cs.requestBreakGlassCredential(clusterId, { id: 'bgc-1' });
    expect(requested).toMatchObject({
      kind: 'BreakGlassCredential',
      id: 'bgc-1',
      href: `/api/clusters_mgmt/v1/clusters/${clusterId}/break_glass_credentials/bgc-1`,
      status: 'created',
    });
    expect(requested.kubeconfig).toBeUndefined();
    expect((await cs.getBreakGlassCredential(clusterId, 'bgc-1')).kubeconfig).toBeUndefined();

    now += 200;
    const issuedAt = now;
    const issued = await cs.getBreakGlassCredential(clusterId, 'bgc-1');
    expect(issued).toMatchObject({ status: 'issued', expiration_timestamp: new Date(issuedAt + DAY_MS).toISOString() });
    expect(issued.kubeconfig).toMatch(/^apiVersion: v1\nkind: Config\n/);
    expect(issued.username).toMatch(/^system:customer-break-glass:/);
    expect(await cs.observeBreakGlassCredential(clusterId, 'bgc-1')).toMatchObject({ found: true, status: { status: 'issued' } });

    const second = await cs.requestBreakGlassCredential(clusterId, {});
    expect(second.id).toMatch(/^[a-z0-9]{32}$/);
    const listed = await cs.listBreakGlassCredentials(clusterId);
    expect(listed.map((c) => [c.id, c.status])).toEqual([
      ['bgc-1', 'issued'],
      [second.id, 'created'],
    ]);
    expect(listed.every((c) => c.kubeconfig === undefined)).toBe(true); // never in a list
    expect(sim.admin.count('GET /clusters/{id}/break_glass_credentials', 200)).toBeGreaterThanOrEqual(2);

    await cs.revokeBreakGlassCredentials(clusterId);
    const awaiting = await cs.listBreakGlassCredentials(clusterId);
    expect(awaiting.map((c) => c.status)).toEqual(['awaiting_revocation', 'awaiting_revocation']);
    expect((await cs.getBreakGlassCredential(clusterId, 'bgc-1')).kubeconfig).toBeUndefined();

    // While the revocation is pending Clusters Service answers 400 "revocation has already been requested".
    await expect(cs.revokeBreakGlassCredentials(clusterId)).resolves.toBeUndefined();
    expect(sim.admin.count('DELETE /clusters/{id}/break_glass_credentials', 400)).toBe(1);

    now += 300;
    const revoked = await cs.getBreakGlassCredential(clusterId, 'bgc-1');
    expect(revoked).toMatchObject({ status: 'revoked', revocation_timestamp: new Date(now).toISOString() });
    expect(revoked.kubeconfig).toBeUndefined();
    // Nothing left to revoke: a new revocation is simply done.
    await expect(cs.revokeBreakGlassCredentials(clusterId)).resolves.toBeUndefined();
    expect(sim.admin.count('DELETE /clusters/{id}/break_glass_credentials', 204)).toBe(2);

    now += DAY_MS;
    expect((await cs.getBreakGlassCredential(clusterId, 'bgc-1')).status).toBe('revoked');
  });

  it('an issued credential expires 24 hours after issue', async () => {
    const clusterId = await readyCluster();
    const { id } = await cs.requestBreakGlassCredential(clusterId, {});
    now += 200 + DAY_MS;
    const expired = await cs.getBreakGlassCredential(clusterId, id);
    expect(expired.status).toBe('expired');
    expect(expired.kubeconfig).toBeUndefined();
  });

  it('a chosen id already taken is a 409; an unknown one is not found', async () => {
    const clusterId = await readyCluster();
    await cs.requestBreakGlassCredential(clusterId, { id: 'taken' });
    expect(isConflict(await failureOf(cs.requestBreakGlassCredential(clusterId, { id: 'taken' })))).toBe(true);
    expect(isNotFound(await failureOf(cs.getBreakGlassCredential(clusterId, 'unknown')))).toBe(true);
    expect(await cs.observeBreakGlassCredential(clusterId, 'unknown')).toEqual({ found: false });
  });

  it('a cluster that is not ready is a 400; one that does not exist is not found', async () => {
    const clusterId = newClusterId();
    await cs.createCluster(createBody(newIdentity(), clusterId));
    const err = await failureOf(cs.requestBreakGlassCredential(clusterId, {}));
    expect(err).toBeInstanceOf(ClustersServiceClientError);
    expect(err).toMatchObject({ status: 400, reason: expect.stringContaining('ready cluster') });
    expect(isNotFound(await failureOf(cs.requestBreakGlassCredential(newClusterId(), {})))).toBe(true);
    expect(isNotFound(await failureOf(cs.listBreakGlassCredentials(newClusterId())))).toBe(true);
  });

  it('admin: the next N requests end failed, and the next revocation ends with one credential failed', async () => {
    const clusterId = await readyCluster();
    sim.admin.failNextCredentialRequests(clusterId, 2);
    const failing = [await cs.requestBreakGlassCredential(clusterId, {}), await cs.requestBreakGlassCredential(clusterId, {})];
    const fine = await cs.requestBreakGlassCredential(clusterId, {});
    now += 200;
    for (const c of failing) {
      const failed = await cs.getBreakGlassCredential(clusterId, c.id);
      expect(failed.status).toBe('failed');
      expect(failed.kubeconfig).toBeUndefined();
      expect(failed.expiration_timestamp).toBeUndefined();
    }
    expect((await cs.getBreakGlassCredential(clusterId, fine.id)).status).toBe('issued');

    const another = await cs.requestBreakGlassCredential(clusterId, {});
    sim.admin.failNextRevocation(clusterId);
    await cs.revokeBreakGlassCredentials(clusterId);
    now += 300;
    const after = await cs.listBreakGlassCredentials(clusterId);
    expect(after.map((c) => [c.id, c.status])).toEqual([
      [failing[0]?.id, 'failed'],
      [failing[1]?.id, 'failed'],
      [fine.id, 'failed'],
      [another.id, 'revoked'],
    ]);
  });

  it('deleting a cluster takes its credentials along; they are not served under the aro_hcp prefix', async () => {
    const clusterId = await readyCluster();
    await cs.requestBreakGlassCredential(clusterId, { id: 'goes' });
    const wrongPrefix = await fetch(`${sim.url}/api/aro_hcp/v1alpha1/clusters/${clusterId}/break_glass_credentials/goes`);
    expect(wrongPrefix.status).toBe(404);
    await cs.deleteCluster(clusterId);
    now += sim.admin.durations().deleteStartMs + sim.admin.durations().uninstallingMs;
    expect(await cs.observeBreakGlassCredential(clusterId, 'goes')).toEqual({ found: false });
  });
});
