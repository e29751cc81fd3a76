import { loadConfig } from '../../../src/config/load-config';
import { SETTINGS } from '../../../src/config/settings';
import { effectiveSettings } from '../../../src/config/effective-settings';
import { serviceBusAccessOf, serviceBusAuthOf } from '../../../src/auth/service-bus-auth';
import { hintsOn } from '../../../src/app/operation-hints';

const CONNECTION_STRING = 'Endpoint=sb://myns.servicebus.windows.net/;SharedAccessKeyName=k;SharedAccessKey=hunter2';

/** serviceBus.namespace / serviceBus.endpoint: names, validation, the exclusion with the connection string, what is shown. */
describe('Service Bus settings: namespace (Entra ID) or connection string (SAS)', () => {
  it('are settings like the others: variable, flag, not secret', () => {
    const byKey = new Map(SETTINGS.map((s) => [s.key, s]));
    expect(byKey.get('serviceBus.namespace')).toMatchObject({
      env: 'OPSTREAM_SERVICE_BUS_NAMESPACE',
      flag: '--service-bus-namespace',
      secret: false,
    });
    expect(byKey.get('serviceBus.endpoint')).toMatchObject({
      env: 'OPSTREAM_SERVICE_BUS_ENDPOINT',
      flag: '--service-bus-endpoint',
      secret: false,
    });
    expect(byKey.get('serviceBus.connectionString')?.secret).toBe(true);
  });

  it('takes a namespace from the environment and an endpoint from a flag', () => {
    const c = loadConfig({
      env: { OPSTREAM_SERVICE_BUS_NAMESPACE: 'myns.servicebus.windows.net' },
      flags: { 'serviceBus.endpoint': 'amqps://127.0.0.1:5671' },
    });
    expect(c.serviceBus).toMatchObject({ namespace: 'myns.servicebus.windows.net', endpoint: 'amqps://127.0.0.1:5671' });
    expect(c.serviceBus.connectionString).toBeUndefined();
  });

  it('refuses a namespace and a connection string together, naming both variables and flags', () => {
    const env = {
      OPSTREAM_SERVICE_BUS_NAMESPACE: 'myns.servicebus.windows.net',
      OPSTREAM_SERVICE_BUS_CONNECTION_STRING: CONNECTION_STRING,
    };
    let message = '';
    try {
      loadConfig({ env });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/^settings serviceBus\.namespace and serviceBus\.connectionString are both set: keep one/);
    for (const name of [
      'OPSTREAM_SERVICE_BUS_NAMESPACE',
      '--service-bus-namespace',
      'OPSTREAM_SERVICE_BUS_CONNECTION_STRING',
      '--service-bus-connection-string',
    ])
      expect(message).toContain(name);
    expect(message).not.toContain('hunter2');
  });

  it.each([
    [
      { OPSTREAM_SERVICE_BUS_NAMESPACE: 'sb://myns.servicebus.windows.net/' },
      'setting serviceBus.namespace (environment OPSTREAM_SERVICE_BUS_NAMESPACE) must be a host name such as myns.servicebus.windows.net (no scheme, port or path) (got "sb://myns.servicebus.windows.net/")',
    ],
    [
      { OPSTREAM_SERVICE_BUS_NAMESPACE: 'myns.servicebus.windows.net', OPSTREAM_SERVICE_BUS_ENDPOINT: '127.0.0.1:5671' },
      'setting serviceBus.endpoint (environment OPSTREAM_SERVICE_BUS_ENDPOINT) must be amqps://host:port (or sb:// or https://, host and optional port, no path), such as amqps://127.0.0.1:5671 (got "127.0.0.1:5671")',
    ],
    [
      { OPSTREAM_SERVICE_BUS_ENDPOINT: 'amqps://127.0.0.1:5671' },
      'setting serviceBus.endpoint (OPSTREAM_SERVICE_BUS_ENDPOINT) is where a namespace is reached, and no namespace is configured: set serviceBus.namespace (OPSTREAM_SERVICE_BUS_NAMESPACE',
    ],
  ])('refuses %j with one line naming the setting', (env, message) => {
    expect(() => loadConfig({ env })).toThrow(message);
  });

  it('hints are on with a namespace alone', () => {
    expect(
      hintsOn(loadConfig({ env: { OPSTREAM_SERVICE_BUS_NAMESPACE: 'myns.servicebus.windows.net', OPSTREAM_SERVICE_BUS_HINTS: 'true' } })),
    ).toBe(true);
  });

  it('says which auth Service Bus uses and why, never the key', () => {
    expect(serviceBusAuthOf(loadConfig({ env: {} }))).toBeUndefined();
    const sas = serviceBusAuthOf(loadConfig({ env: { OPSTREAM_SERVICE_BUS_CONNECTION_STRING: CONNECTION_STRING } }));
    expect(sas).toEqual({
      kind: 'connection-string',
      namespace: 'myns.servicebus.windows.net',
      reason: 'serviceBus.connectionString is set: its SAS key is used',
    });
    const env = { OPSTREAM_SERVICE_BUS_NAMESPACE: 'myns.servicebus.windows.net', OPSTREAM_SERVICE_BUS_ENDPOINT: 'amqps://127.0.0.1:5671' };
    const entra = serviceBusAuthOf(loadConfig({ env }), { AZURE_CLIENT_ID: 'c1', AZURE_FEDERATED_TOKEN_FILE: '/var/run/token' });
    expect(entra).toMatchObject({ kind: 'entra-id', namespace: 'myns.servicebus.windows.net', endpoint: 'amqps://127.0.0.1:5671' });
    expect(entra?.reason).toBe(
      'serviceBus.namespace is set: Entra ID through DefaultAzureCredential (workload identity (AZURE_FEDERATED_TOKEN_FILE), client id c1 (AZURE_CLIENT_ID))',
    );
    const shown = effectiveSettings(loadConfig({ env: { OPSTREAM_SERVICE_BUS_CONNECTION_STRING: CONNECTION_STRING } }), {
      env: { OPSTREAM_SERVICE_BUS_CONNECTION_STRING: CONNECTION_STRING },
      flags: {},
    });
    expect(JSON.stringify(shown)).not.toContain('hunter2');
  });

  it('builds the access every client is made from: the key form, or the namespace with the process credential', () => {
    expect(serviceBusAccessOf(loadConfig({ env: { OPSTREAM_SERVICE_BUS_CONNECTION_STRING: CONNECTION_STRING } }))).toEqual({
      kind: 'connection-string',
      connectionString: CONNECTION_STRING,
    });
    const access = serviceBusAccessOf(loadConfig({ env: { OPSTREAM_SERVICE_BUS_NAMESPACE: 'myns.servicebus.windows.net' } }), {
      AZURE_CLIENT_ID: 'c1',
    });
    expect(access).toMatchObject({ kind: 'entra-id', namespace: 'myns.servicebus.windows.net', identity: 'client id c1' });
    expect(access?.kind === 'entra-id' && typeof access.credential.getToken).toBe('function');
  });
});
