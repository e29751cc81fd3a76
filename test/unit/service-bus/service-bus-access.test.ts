import type { TokenCredential } from '@azure/core-auth';
import { ServiceBusError } from '@azure/service-bus';
import {
  accessFix,
  createServiceBusClient,
  lastAttemptError,
  namespaceHost,
  type ServiceBusAccess,
} from '../../../src/service-bus/service-bus-access';

const credential: TokenCredential = { getToken: async () => null };
const entra: ServiceBusAccess = {
  kind: 'entra-id',
  namespace: 'myns.servicebus.windows.net',
  credential,
  identity: 'client id c1',
  endpoint: 'amqps://127.0.0.1:5671',
};
const sas: ServiceBusAccess = {
  kind: 'connection-string',
  connectionString: 'Endpoint=sb://myns.servicebus.windows.net/;SharedAccessKeyName=k;SharedAccessKey=hunter2',
};
const unauthorized = (message: string): ServiceBusError => new ServiceBusError(message, 'UnauthorizedAccess');

/** The one factory and what a refusal tells the operator, for both forms of the namespace. */
describe('Service Bus access', () => {
  it('builds the client for the namespace from either form, connecting to the custom endpoint when given', async () => {
    const a = createServiceBusClient(entra);
    const b = createServiceBusClient(sas);
    try {
      expect(a.fullyQualifiedNamespace).toBe('127.0.0.1');
      expect(b.fullyQualifiedNamespace).toBe('myns.servicebus.windows.net');
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
    expect(namespaceHost(sas)).toBe('myns.servicebus.windows.net');
  });

  it('names the data role and the identity under Entra ID, the setting under a key, and nothing for other errors', () => {
    expect(accessFix(entra, unauthorized("'Send' claim(s) are required"), 'Send', 'operation-events')).toBe(
      'the identity (client id c1) lacks the Send right on operation-events: assign it the Azure Service Bus Data Sender role on namespace myns.servicebus.windows.net (az role assignment create --role "Azure Service Bus Data Sender" --assignee <client id> --scope <namespace resource id>)',
    );
    expect(accessFix(entra, unauthorized('x'), 'Listen', 't/Subscriptions/s')).toContain('Azure Service Bus Data Receiver');
    expect(accessFix(sas, unauthorized('x'), 'Send', 'operation-events')).toBe(
      'the key lacks the Send right on operation-events: check serviceBus.connectionString (OPSTREAM_SERVICE_BUS_CONNECTION_STRING)',
    );
    expect(
      accessFix(
        sas,
        unauthorized('LocalAuthDisabled: Authorization failed because SAS authentication has been disabled for the namespace.'),
        'Send',
        'e',
      ),
    ).toMatch(/local \(SAS\) auth disabled: set serviceBus\.namespace \(OPSTREAM_SERVICE_BUS_NAMESPACE\)/);
    expect(accessFix(entra, new ServiceBusError('busy', 'ServiceBusy'), 'Send', 'e')).toBe('');
    expect(accessFix(entra, new Error('x'), 'Send', 'e')).toBe('');
  });

  it('reads the last attempt of the SDK retry AggregateError', () => {
    const last = unauthorized('refused');
    const aggregate = new AggregateError([new ServiceBusError('timeout', 'ServiceTimeout'), last]);
    expect(lastAttemptError(aggregate)).toBe(last);
    expect(accessFix(entra, aggregate, 'Send', 'operation-events')).toContain('Azure Service Bus Data Sender');
    expect(lastAttemptError(last)).toBe(last);
  });
});
