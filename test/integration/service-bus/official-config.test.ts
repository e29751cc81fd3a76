import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { RuleProperties, ServiceBusClient, ServiceBusReceivedMessage } from '@azure/service-bus';
import { waitFor } from '../../helpers/wait-for';
import { Proc, spawnServiceBus } from './cli-process';

/**
 * A Config.json written the way the official emulator's installer writes its own (every property it lists,
 * empty ForwardTo strings, dotted entity names, a correlation filter with every field, a user-property
 * filter, a subscription without rules, a SQL filter with an action) works unchanged with
 * `opstream emulator service-bus --config`.
 */
const entityProps = {
  DeadLetteringOnMessageExpiration: false,
  DefaultMessageTimeToLive: 'PT1H',
  LockDuration: 'PT1M',
  MaxDeliveryCount: 3,
  ForwardDeadLetteredMessagesTo: '',
  ForwardTo: '',
  RequiresSession: false,
};
const OFFICIAL_SHAPE = {
  UserConfig: {
    Namespaces: [
      {
        Name: 'sbemulatorns',
        Queues: [
          {
            Name: 'jobs.inbound',
            Properties: { ...entityProps, DuplicateDetectionHistoryTimeWindow: 'PT20S', RequiresDuplicateDetection: false },
          },
        ],
        Topics: [
          {
            Name: 'fleet.events',
            Properties: {
              DefaultMessageTimeToLive: 'PT1H',
              DuplicateDetectionHistoryTimeWindow: 'PT20S',
              RequiresDuplicateDetection: false,
            },
            Subscriptions: [
              {
                Name: 'exact.match',
                Properties: entityProps,
                Rules: [
                  {
                    Name: 'every-field',
                    Properties: {
                      FilterType: 'Correlation',
                      CorrelationFilter: {
                        ContentType: 'text/plain',
                        CorrelationId: 'corr-7',
                        Label: 'engine',
                        MessageId: 'm-7',
                        ReplyTo: 'replies',
                        ReplyToSessionId: 'reply-session',
                        SessionId: 'fleet-1',
                        To: 'dock',
                      },
                    },
                  },
                ],
              },
              {
                Name: 'by.region',
                Properties: entityProps,
                Rules: [
                  { Name: 'region-west', Properties: { FilterType: 'Correlation', CorrelationFilter: { Properties: { region: 'west' } } } },
                ],
              },
              { Name: 'everything', Properties: entityProps },
              {
                Name: 'heavy',
                Properties: entityProps,
                Rules: [
                  {
                    Name: 'over-ten',
                    Properties: {
                      FilterType: 'Sql',
                      SqlFilter: { SqlExpression: 'weight > 10' },
                      Action: { SqlExpression: "SET class = 'heavy'" },
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

/**
 * The stand-in's command line started on a Config.json written from `config`, with a client for it;
 * registered with jest's beforeAll/afterAll of the calling describe.
 */
function standInWith(config: () => unknown, prefix: string): { client: () => ServiceBusClient } {
  let dir = '';
  let proc: Proc | undefined;
  let client: ServiceBusClient | undefined;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
    const file = path.join(dir, 'Config.json');
    fs.writeFileSync(file, JSON.stringify(config(), null, 2));
    proc = await spawnServiceBus(['--port', '0', '--config', file]);
    client = new ServiceBusClient(proc.connectionString);
  });
  afterAll(async () => {
    await client?.close();
    if (proc && proc.child.exitCode === null) proc.child.kill('SIGTERM');
    await proc?.exited;
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return {
    client: () => {
      if (!client) throw new Error('the stand-in has not started');
      return client;
    },
  };
}

describe('opstream emulator service-bus --config: a Config.json in the official emulator installer shape', () => {
  const standIn = standInWith(() => OFFICIAL_SHAPE, 'service-bus-official-config-');

  async function drain(sub: string): Promise<ServiceBusReceivedMessage[]> {
    const r = standIn.client().createReceiver('fleet.events', sub, { receiveMode: 'receiveAndDelete' });
    const got: ServiceBusReceivedMessage[] = [];
    for (;;) {
      const batch = await r.receiveMessages(10, { maxWaitTimeInMs: 300 });
      if (!batch.length) break;
      got.push(...batch);
    }
    await r.close();
    return got;
  }

  it('serves its queue and routes topic messages by its correlation, property and SQL rules (with the action applied)', async () => {
    await standIn.client().createSender('jobs.inbound').sendMessages({ body: 'job' });
    const q = standIn.client().createReceiver('jobs.inbound', { receiveMode: 'receiveAndDelete' });
    expect((await waitFor(async () => (await q.receiveMessages(1, { maxWaitTimeInMs: 300 }))[0])).body).toBe('job');
    await q.close();

    const t = standIn.client().createSender('fleet.events');
    await t.sendMessages([
      {
        body: 1,
        messageId: 'm-7',
        contentType: 'text/plain',
        correlationId: 'corr-7',
        subject: 'engine',
        replyTo: 'replies',
        replyToSessionId: 'reply-session',
        sessionId: 'fleet-1',
        to: 'dock',
      },
      { body: 2, messageId: 'm-8', contentType: 'text/plain', correlationId: 'corr-7', subject: 'engine', to: 'dock' },
      { body: 3, messageId: 'west', applicationProperties: { region: 'west', weight: 12 } },
      { body: 4, messageId: 'east', applicationProperties: { region: 'east', weight: 3 } },
    ]);
    await t.close();
    await waitFor(async () => (await standIn.client().createReceiver('fleet.events', 'everything').peekMessages(10)).length === 4);
    expect((await drain('everything')).map((m) => m.messageId)).toEqual(['m-7', 'm-8', 'west', 'east']);
    expect((await drain('exact.match')).map((m) => m.messageId)).toEqual(['m-7']);
    expect((await drain('by.region')).map((m) => m.messageId)).toEqual(['west']);
    expect((await drain('heavy')).map((m) => [m.messageId, m.applicationProperties?.class])).toEqual([['west', 'heavy']]);
  });

  it('lists the configured rules through the rule manager, and the $Default rule of a subscription without rules', async () => {
    const list = async (sub: string): Promise<RuleProperties[]> => {
      const out: RuleProperties[] = [];
      for await (const r of standIn.client().createRuleManager('fleet.events', sub).listRules()) out.push(r);
      return out;
    };
    expect((await list('everything')).map((r) => [r.name, r.filter])).toEqual([['$Default', { sqlExpression: '1=1' }]]);
    expect((await list('heavy')).map((r) => [r.name, r.filter, r.action])).toEqual([
      ['over-ten', { sqlExpression: 'weight > 10' }, { sqlExpression: "SET class = 'heavy'" }],
    ]);
    const [every] = await list('exact.match');
    expect(every.filter).toMatchObject({
      correlationId: 'corr-7',
      messageId: 'm-7',
      subject: 'engine',
      sessionId: 'fleet-1',
      to: 'dock',
      contentType: 'text/plain',
    });
  });
});

/**
 * The sample Config.json of the official emulator installer repository (Azure/azure-service-bus-emulator-installer,
 * ServiceBus-Emulator/Config/Config.json, also printed in Microsoft's "test locally with the Service Bus emulator"
 * page), rebuilt here with the same shape, names, properties and rules: queue.1; topic.1 with a subscription per
 * filter kind (a correlation filter on every system field, one on a user property, none, and a SQL filter whose
 * action sets sys.To). It must start unchanged and route as the service would.
 */
function installerSampleConfig(): unknown {
  const subscriptionProps = {
    DeadLetteringOnMessageExpiration: false,
    DefaultMessageTimeToLive: 'PT1H',
    LockDuration: 'PT1M',
    MaxDeliveryCount: 3,
    ForwardDeadLetteredMessagesTo: '',
    ForwardTo: '',
    RequiresSession: false,
  };
  const subscription = (n: number, rule?: { Name: string; Properties: Record<string, unknown> }): Record<string, unknown> => ({
    Name: `subscription.${n}`,
    Properties: subscriptionProps,
    ...(rule ? { Rules: [rule] } : {}),
  });
  const queueProps = { ...subscriptionProps, DuplicateDetectionHistoryTimeWindow: 'PT20S', RequiresDuplicateDetection: false };
  return {
    UserConfig: {
      Namespaces: [
        {
          Name: 'sbemulatorns',
          Queues: [{ Name: 'queue.1', Properties: queueProps }],
          Topics: [
            {
              Name: 'topic.1',
              Properties: {
                DefaultMessageTimeToLive: 'PT1H',
                DuplicateDetectionHistoryTimeWindow: 'PT20S',
                RequiresDuplicateDetection: false,
              },
              Subscriptions: [
                subscription(1, {
                  Name: 'app-prop-filter-1',
                  Properties: {
                    FilterType: 'Correlation',
                    CorrelationFilter: {
                      ContentType: 'application/text',
                      CorrelationId: 'id1',
                      Label: 'subject1',
                      MessageId: 'msgid1',
                      ReplyTo: 'someQueue',
                      ReplyToSessionId: 'sessionId',
                      SessionId: 'session1',
                      To: 'xyz',
                    },
                  },
                }),
                subscription(2, {
                  Name: 'user-prop-filter-1',
                  Properties: { FilterType: 'Correlation', CorrelationFilter: { Properties: { prop1: 'value1' } } },
                }),
                subscription(3),
                subscription(4, {
                  Name: 'sql-filter-1',
                  Properties: {
                    FilterType: 'Sql',
                    SqlFilter: { SqlExpression: "sys.MessageId = '123456' AND userProp1 = 'value1'" },
                    Action: { SqlExpression: "SET sys.To = 'Entity'" },
                  },
                }),
              ],
            },
          ],
        },
      ],
      Logging: { Type: 'File' },
    },
  };
}

describe('opstream emulator service-bus --config: the official installer sample Config.json, rebuilt', () => {
  const standIn = standInWith(installerSampleConfig, 'service-bus-installer-config-');

  it("starts with it unchanged, serves queue.1, and routes topic.1 by its four subscriptions' rules; sql-filter-1's action sets To", async () => {
    await standIn.client().createSender('queue.1').sendMessages({ body: 'q' });
    const q = standIn.client().createReceiver('queue.1', { receiveMode: 'receiveAndDelete' });
    expect((await waitFor(async () => (await q.receiveMessages(1, { maxWaitTimeInMs: 300 }))[0])).body).toBe('q');

    await standIn
      .client()
      .createSender('topic.1')
      .sendMessages([
        {
          body: 'all-fields',
          contentType: 'application/text',
          correlationId: 'id1',
          subject: 'subject1',
          messageId: 'msgid1',
          replyTo: 'someQueue',
          replyToSessionId: 'sessionId',
          sessionId: 'session1',
          to: 'xyz',
        },
        { body: 'user-prop', messageId: 'p', applicationProperties: { prop1: 'value1' } },
        { body: 'sql', messageId: '123456', to: 'before', applicationProperties: { userProp1: 'value1' } },
      ]);
    const drain = async (sub: string): Promise<ServiceBusReceivedMessage[]> => {
      const r = standIn.client().createReceiver('topic.1', sub, { receiveMode: 'receiveAndDelete' });
      const got: ServiceBusReceivedMessage[] = [];
      for (;;) {
        const batch = await r.receiveMessages(10, { maxWaitTimeInMs: 300 });
        if (!batch.length) break;
        got.push(...batch);
      }
      await r.close();
      return got;
    };
    await waitFor(async () => (await standIn.client().createReceiver('topic.1', 'subscription.3').peekMessages(10)).length === 3);
    expect((await drain('subscription.3')).map((m) => [m.body, m.to])).toEqual([
      ['all-fields', 'xyz'],
      ['user-prop', undefined],
      ['sql', 'before'],
    ]);
    expect((await drain('subscription.1')).map((m) => m.body)).toEqual(['all-fields']);
    expect((await drain('subscription.2')).map((m) => m.body)).toEqual(['user-prop']);
    const [sql, ...more] = await drain('subscription.4');
    expect(more).toEqual([]);
    expect([sql.body, sql.messageId, sql.to, sql.applicationProperties]).toEqual(['sql', '123456', 'Entity', { userProp1: 'value1' }]);
  });
});
