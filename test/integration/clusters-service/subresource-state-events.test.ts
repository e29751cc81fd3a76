import { startClustersServiceSimulator, type ClustersServiceSimulator } from '@opstream/clusters-service-simulator';
import { startServiceBus, type ServiceBusEmulator } from '@opstream/service-bus-emulator';
import { ClustersServiceClient } from '../../../src/clusters-service';
import { validate } from '../../../src/schemas/validator';
import { waitFor } from '../../helpers/wait-for';
import { CS_EVENTS_BUS_CONFIG, receiveCsEvents, type CsEventsReceiver } from './events-receiver';
import { createBody, newClusterId, newIdentity } from './helpers';

/** Break-glass credentials and external auths publish their state changes as clusters do (valid CS events). */
describe('Clusters Service simulator: state-change events of credentials and external auths', () => {
  let bus: ServiceBusEmulator;
  let sim: ClustersServiceSimulator;
  let cs: ClustersServiceClient;
  let events: CsEventsReceiver;

  beforeAll(async () => {
    bus = await startServiceBus({ port: 0, config: CS_EVENTS_BUS_CONFIG });
    sim = await startClustersServiceSimulator({
      durations: {
        pendingMs: 0,
        validatingMs: 0,
        installingMs: 0,
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

  it('a credential: created, issued, awaiting_revocation, revoked; deleted with its cluster', async () => {
    const clusterId = newClusterId();
    await cs.createCluster(createBody(newIdentity(), clusterId));
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
    expect(sim.admin.events()).toMatchObject({ failed: 0 });
  });
});
