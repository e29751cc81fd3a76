import { randomUUID } from 'node:crypto';
import Ajv from 'ajv';
import { ServiceBusClient } from '@azure/service-bus';
import { startServiceBus, type ServiceBusEmulator } from '@opstream/service-bus-emulator';
import { OPERATION_HINTS_ENTITY } from '@opstream/frontend-simulator';
import type { OperationHint } from '../../../src/domain/types.generated';
import { createLogger } from '../../../src/logging/logger';
import { OperationHintsReceiver } from '../../../src/service-bus/operation-hints-receiver';
import { waitFor } from '../../helpers/wait-for';

const CONFIG = {
  UserConfig: {
    Namespaces: [{ Name: 'sbemulatorns', Queues: [{ Name: OPERATION_HINTS_ENTITY, Properties: {} }], Topics: [] }],
    Logging: { Type: 'File' },
  },
};

/**
 * Compiling the schemas blocks the event loop for a few hundred milliseconds; done on the first
 * hint, it made that hint the slowest operation of bench/idle-cost.ts's hints policy (p99 193 ms
 * against a 25 ms target). This file is alone so that nothing has compiled them before the test:
 * jest gives each test file modules of its own.
 */
describe('operation hints receiver', () => {
  let bus: ServiceBusEmulator;
  beforeAll(async () => {
    bus = await startServiceBus({ port: 0, config: CONFIG });
  });
  afterAll(() => bus.close());

  it('compiles the schemas when it starts, not when the first hint arrives', async () => {
    const compiling = jest.spyOn(Ajv.prototype, 'addSchema');
    const hints: OperationHint[] = [];
    let compiledByHint = -1;
    const receiver = new OperationHintsReceiver({
      access: { kind: 'connection-string', connectionString: bus.connectionString },
      entity: OPERATION_HINTS_ENTITY,
      onHint: (hint) => {
        compiledByHint = compiling.mock.calls.length;
        hints.push(hint);
      },
      // Closing the receiver logs a warning of the SDK's (a suspended receiver); not this test's.
      logger: createLogger({ level: 'error', format: 'json' }),
    });
    const client = new ServiceBusClient(bus.connectionString);
    try {
      expect(compiling).not.toHaveBeenCalled();
      receiver.start();
      const compiledByStart = compiling.mock.calls.length;

      const hint = { partitionKey: randomUUID(), operationId: randomUUID() };
      const sender = client.createSender(OPERATION_HINTS_ENTITY);
      await sender.sendMessages({ body: hint, contentType: 'application/json' });
      await sender.close();
      await waitFor(() => hints.length === 1, { describe: () => `the hint to be received (${hints.length} received)` });
      expect(hints[0]).toEqual(hint);
      expect(compiledByHint).toBe(compiledByStart);
      expect(compiledByStart).toBeGreaterThan(0);
    } finally {
      compiling.mockRestore();
      await client.close();
      await receiver.close();
    }
  });
});
