import { randomUUID } from 'node:crypto';
import { ServiceBusClient, type ServiceBusReceivedMessage } from '@azure/service-bus';
import { OPERATION_HINTS_ENTITY, OperationHintSender } from '@opstream/hint-sender';
import { startServiceBus, type ServiceBusEmulator } from '@opstream/service-bus-emulator';
import { check } from '../../../src/schemas/validator';

const CONFIG = {
  UserConfig: {
    Namespaces: [{ Name: 'sbemulatorns', Queues: [{ Name: OPERATION_HINTS_ENTITY, Properties: {} }], Topics: [] }],
    Logging: { Type: 'File' },
  },
};

/**
 * The frontend's hint sender against the local Service Bus, through the real SDK on both sides: what
 * it sends is what opstream's receiver takes (the schema), and a refused send is counted, never thrown.
 */
describe('@opstream/hint-sender', () => {
  let bus: ServiceBusEmulator;
  let client: ServiceBusClient;
  let sender: OperationHintSender;

  beforeAll(async () => {
    bus = await startServiceBus({ port: 0, config: CONFIG });
    client = new ServiceBusClient(bus.connectionString);
    sender = new OperationHintSender({ connectionString: bus.connectionString }, { sendTimeoutMs: 1000 });
    await sender.open();
  });
  afterAll(async () => {
    await sender.close();
    await client.close();
    await bus.close();
  });

  async function receiveOne(): Promise<ServiceBusReceivedMessage> {
    const receiver = client.createReceiver(OPERATION_HINTS_ENTITY, { receiveMode: 'receiveAndDelete' });
    try {
      const [message] = await receiver.receiveMessages(1, { maxWaitTimeInMs: 10_000 });
      if (!message) throw new Error('no hint arrived within 10 s');
      return message;
    } finally {
      await receiver.close();
    }
  }

  it('sends the contract: a JSON body opstream validates, content type application/json, a minute to live', async () => {
    const hint = { partitionKey: randomUUID().toLowerCase(), operationId: randomUUID() };
    await expect(sender.send(hint)).resolves.toBe(true);
    const message = await receiveOne();
    expect(message.body).toEqual(hint);
    expect(message.contentType).toBe('application/json');
    expect(message.timeToLive).toBe(60_000);
    expect(check('operationHint', message.body)).toMatchObject({ ok: true });
    expect(sender.counts()).toMatchObject({ sent: 1, failed: 0 });
  });

  it('a send Service Bus refuses resolves false and is counted with its reason; the next one goes through', async () => {
    bus.setFaults({ kind: 'refuse-send', entity: OPERATION_HINTS_ENTITY, count: 4 });
    try {
      await expect(sender.send({ partitionKey: randomUUID().toLowerCase(), operationId: randomUUID() })).resolves.toBe(false);
    } finally {
      bus.setFaults([]);
    }
    expect(sender.counts()).toMatchObject({ sent: 1, failed: 1, lastError: expect.stringMatching(/./) as unknown as string });
    const next = { partitionKey: randomUUID().toLowerCase(), operationId: randomUUID() };
    await expect(sender.send(next)).resolves.toBe(true);
    expect((await receiveOne()).body).toEqual(next);
  });

  it("refuses a hint without the Operation's partition key or id: the caller's bug, not a lost hint", async () => {
    await expect(sender.send({ partitionKey: '', operationId: 'x' })).rejects.toThrow(/partitionKey and operationId/);
    await expect(sender.send({ partitionKey: 'p' } as unknown as { partitionKey: string; operationId: string })).rejects.toThrow(TypeError);
    expect(sender.counts()).toMatchObject({ sent: 2, failed: 1 });
  });
});
