import { ServiceBusClient } from '@azure/service-bus';
import { ServiceBusEmulator, ServiceBusEmulatorOptions, startServiceBus } from '@opstream/service-bus-emulator';

/** One queue/topic layout in the official emulator's Config.json format, used by most tests. */
export const CONFIG = {
  UserConfig: {
    Namespaces: [
      {
        Name: 'sbemulatorns',
        Queues: [
          { Name: 'orders', Properties: { LockDuration: 'PT1M', MaxDeliveryCount: 3 } },
          { Name: 'short-lock', Properties: { LockDuration: 'PT0.3S', MaxDeliveryCount: 2 } },
          { Name: 'expiring', Properties: { DefaultMessageTimeToLive: 'PT0.2S', DeadLetteringOnMessageExpiration: true } },
          { Name: 'dedup', Properties: { RequiresDuplicateDetection: true, DuplicateDetectionHistoryTimeWindow: 'PT1M' } },
          { Name: 'sessions', Properties: { RequiresSession: true, LockDuration: 'PT5S' } },
          { Name: 'bench', Properties: {} },
        ],
        Topics: [
          {
            Name: 'events',
            Properties: {},
            Subscriptions: [
              { Name: 'all', Properties: {} },
              {
                Name: 'red',
                Properties: {},
                Rules: [
                  {
                    Name: 'red',
                    Properties: { FilterType: 'Correlation', CorrelationFilter: { Label: 'color', Properties: { color: 'red' } } },
                  },
                ],
              },
              {
                Name: 'big',
                Properties: {},
                Rules: [
                  {
                    Name: 'big',
                    Properties: {
                      FilterType: 'Sql',
                      SqlFilter: { SqlExpression: "size > 10 AND (kind IN ('a', 'b') OR name LIKE 'x%') AND NOT EXISTS(skip)" },
                    },
                  },
                ],
              },
            ],
          },
        ],
      },
    ],
    Logging: { Type: 'File' },
  },
};

export interface Harness {
  emu: ServiceBusEmulator;
  client: ServiceBusClient;
  close(): Promise<void>;
}

export async function startHarness(options: ServiceBusEmulatorOptions = {}): Promise<Harness> {
  const emu = await startServiceBus({ port: 0, config: CONFIG, ...options });
  const client = new ServiceBusClient(emu.connectionString, { retryOptions: { maxRetries: 2, retryDelayInMs: 50, timeoutInMs: 10_000 } });
  return {
    emu,
    client,
    close: async () => {
      await client.close();
      await emu.close();
    },
  };
}
