import { startClustersServiceSimulator, type ClustersServiceSimulator } from '@opstream/clusters-service-simulator';
import { startServiceBus, type ServiceBusEmulator } from '@opstream/service-bus-emulator';
import { ClustersServiceClient } from '../../../src/clusters-service';
import { validate } from '../../../src/schemas/validator';
import { waitFor } from '../../helpers/wait-for';
import { CS_EVENTS_BUS_CONFIG, receiveCsEvents, type CsEventsReceiver } from './events-receiver';
import { createBody, newClusterId, newIdentity } from './helpers';

/**
 * The simulator as a Clusters Service with publish-subscribe: every state change of a cluster, node
 * pool, break-glass credential or external auth is a message on the topic, read back here through
 * the real SDK.
 */
describe('Clusters Service simulator: state-change events on Service Bus', () => {
  let bus: ServiceBusEmulator;
  let sim: ClustersServiceSimulator;
  let cs: ClustersServiceClient;
  let events: CsEventsReceiver;

  beforeAll(async () => {
    bus = await startServiceBus({ port: 0, config: CS_EVENTS_BUS_CONFIG });
    sim = await startClustersServiceSimulator({
      durations: {
        pendingMs: 50,
        validatingMs: 50,
        installingMs: 150,
        updatingMs: 100,
        deleteStartMs: 50,
        uninstallingMs: 100,
        credentialIssueMs: 100,
        credentialRevokeMs: 100,
        externalAuthMs: 100,
      },
      serviceBus: { connectionString: bus.connectionString },
    });
    cs = new ClustersServiceClient({ baseUrl: sim.url });
    events = receiveCsEvents(bus.connectionString);
  });
  afterAll(async () => {
    await events.close();
    await sim.close();
    await bus.close();
  });

  const statesOf = (href: string): string[] => events.statesOf(href);

  it('publishes each state of a cluster and its node pool, in order, through deletion', async () => {
    const id = newClusterId();
    const cluster = await cs.createCluster(createBody(newIdentity(), id));
    const href = String(cluster.href);
    await waitFor(() => statesOf(href).includes('ready'), { describe: () => `cluster events: ${statesOf(href).join(', ')}` });
    const nodePool = await cs.createNodePool(id, { id: 'np1', version: { id: 'openshift-v4.18.1' }, replicas: 2 });
    const npHref = String(nodePool.href);
    await waitFor(() => statesOf(npHref).includes('ready'), { describe: () => `node pool events: ${statesOf(npHref).join(', ')}` });
    await cs.updateCluster(id, { version: { id: 'openshift-v4.18.2' } });
    await waitFor(() => statesOf(href).filter((s) => s === 'ready').length === 2, {
      describe: () => `cluster events: ${statesOf(href).join(', ')}`,
    });
    await cs.deleteCluster(id);
    await waitFor(() => statesOf(href).includes('deleted') && statesOf(npHref).includes('deleted'), {
      describe: () => `cluster: ${statesOf(href).join(', ')}; node pool: ${statesOf(npHref).join(', ')}`,
    });

    expect(statesOf(href)).toEqual(['pending', 'validating', 'installing', 'ready', 'updating', 'ready', 'uninstalling', 'deleted']);
    expect(statesOf(npHref)).toEqual(['pending', 'validating', 'installing', 'ready', 'uninstalling', 'deleted']);
    const first = events.received.find((m) => validate('csEvent', m.body).href === href);
    expect(first?.body).toMatchObject({ kind: 'Cluster', id, href, state: 'pending' });
    expect(first?.applicationProperties).toEqual({ kind: 'Cluster', state: 'pending' });
    expect(sim.admin.events()).toMatchObject({ published: events.received.length, failed: 0 });
  });

  it('an error forced on a cluster is published at once', async () => {
    const id = newClusterId();
    const href = String((await cs.createCluster(createBody(newIdentity(), id))).href);
    sim.admin.failCluster(id, { code: 'OCM3001', message: 'quota' });
    await waitFor(() => statesOf(href).includes('error'), { describe: () => statesOf(href).join(', ') });
    expect(statesOf(href)).toEqual(['pending', 'error']);
  });

  it('a credential: created, issued, awaiting_revocation, revoked; deleted with its cluster', async () => {
    const clusterId = newClusterId();
    await cs.createCluster(createBody(newIdentity(), clusterId));
    await waitFor(async () => (await cs.getClusterStatus(clusterId)).state === 'ready');
    const { href } = await cs.requestBreakGlassCredential(clusterId, { id: 'bgc' });
    await waitFor(() => statesOf(href).includes('issued'), { describe: () => `credential events: ${statesOf(href).join(', ')}` });
    await cs.revokeBreakGlassCredentials(clusterId);
    await waitFor(() => statesOf(href).includes('revoked'), { describe: () => `credential events: ${statesOf(href).join(', ')}` });
    await cs.deleteCluster(clusterId);
    await waitFor(() => statesOf(href).includes('deleted'), { describe: () => `credential events: ${statesOf(href).join(', ')}` });
    expect(statesOf(href)).toEqual(['created', 'issued', 'awaiting_revocation', 'revoked', 'deleted']);
    const first = events.received.find((m) => validate('csEvent', m.body).href === href);
    expect(first?.body).toMatchObject({ kind: 'BreakGlassCredential', id: 'bgc', state: 'created' });
  });

  it('an external auth: installing, ready, updating, ready, error, uninstalling, deleted', async () => {
    const clusterId = newClusterId();
    await cs.createCluster(createBody(newIdentity(), clusterId));
    const { href } = await cs.createExternalAuth(clusterId, { id: 'ea', issuer: { url: 'https://issuer.example', audiences: ['a'] } });
    await waitFor(() => statesOf(href).includes('ready'), { describe: () => `external auth events: ${statesOf(href).join(', ')}` });
    await cs.updateExternalAuth(clusterId, 'ea', { issuer: { url: 'https://other.example', audiences: ['a'] } });
    await waitFor(() => statesOf(href).filter((s) => s === 'ready').length === 2, { describe: () => statesOf(href).join(', ') });
    sim.admin.failExternalAuth(clusterId, 'ea', { message: 'bad issuer' });
    await cs.deleteExternalAuth(clusterId, 'ea');
    await waitFor(() => statesOf(href).includes('deleted'), { describe: () => `external auth events: ${statesOf(href).join(', ')}` });
    expect(statesOf(href)).toEqual(['installing', 'ready', 'updating', 'ready', 'error', 'uninstalling', 'deleted']);
  });
});
