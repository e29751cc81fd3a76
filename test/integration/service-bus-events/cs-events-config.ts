/** The Service Bus stand-in's configuration for Clusters Service events: the topic and opstream's subscription. */
export const TOPIC = 'clusters-service-events';
export const CONFIG = {
  UserConfig: {
    Namespaces: [
      {
        Name: 'sbemulatorns',
        Queues: [],
        Topics: [{ Name: TOPIC, Properties: {}, Subscriptions: [{ Name: 'opstream', Properties: {} }] }],
      },
    ],
    Logging: { Type: 'File' },
  },
};
