import { startClustersServiceSimulator, type ClustersServiceSimulator } from '@opstream/clusters-service-simulator';
import { startServiceBus, type ServiceBusEmulator } from '@opstream/service-bus-emulator';
import { ClustersServiceClient } from '../../../src/clusters-service';
import { validate } from '../../../src/schemas/validator';
import { waitFor } from '../../helpers/wait-for';
import { CS_EVENTS_BUS_CONFIG, receiveCsEvents, type CsEventsReceiver } from './events-receiver';
import { createBody, newClusterId, newIdentity } from './helpers';

/**
 * The simulator as a Clusters Service with publish-subscribe: every state change of a cluster or
 * node pool is a message on the topic, read back here through the real SDK.
 */
describe('Clusters Service simulator: state-change events on Service Bus', () => {
  let bus: ServiceBusEmulator;
  let sim: ClustersServiceSimulator;
  let cs: ClustersServiceClient;
  let events: CsEventsReceiver;

  beforeAll(async () => {
    bus = await startServiceBus({ port: 0, config: CS_EVENTS_BUS_CONFIG });
    sim = await startClustersServiceSimulator({
      durations: { pendingMs: 50, validatingMs: 50, installingMs: 150, updatingMs: 100, deleteStartMs: 50, uninstallingMs: 100 },
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
});
