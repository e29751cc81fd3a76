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

describe('opstream emulator service-bus --config: a Config.json in the official emulator installer shape', () => {
  let dir: string;
  let proc: Proc;
  let client: ServiceBusClient;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'service-bus-official-config-'));
    const file = path.join(dir, 'Config.json');
    fs.writeFileSync(file, JSON.stringify(OFFICIAL_SHAPE, null, 2));
    proc = await spawnServiceBus(['--port', '0', '--config', file]);
    client = new ServiceBusClient(proc.connectionString);
  });
  afterAll(async () => {
    await client?.close();
    if (proc && proc.child.exitCode === null) proc.child.kill('SIGTERM');
    await proc?.exited;
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function drain(sub: string): Promise<ServiceBusReceivedMessage[]> {
    const r = client.createReceiver('fleet.events', sub, { receiveMode: 'receiveAndDelete' });
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
    await client.createSender('jobs.inbound').sendMessages({ body: 'job' });
    const q = client.createReceiver('jobs.inbound', { receiveMode: 'receiveAndDelete' });
    expect((await waitFor(async () => (await q.receiveMessages(1, { maxWaitTimeInMs: 300 }))[0])).body).toBe('job');
    await q.close();

    const t = client.createSender('fleet.events');
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
    await waitFor(async () => (await client.createReceiver('fleet.events', 'everything').peekMessages(10)).length === 4);
    expect((await drain('everything')).map((m) => m.messageId)).toEqual(['m-7', 'm-8', 'west', 'east']);
    expect((await drain('exact.match')).map((m) => m.messageId)).toEqual(['m-7']);
    expect((await drain('by.region')).map((m) => m.messageId)).toEqual(['west']);
    expect((await drain('heavy')).map((m) => [m.messageId, m.applicationProperties?.class])).toEqual([['west', 'heavy']]);
  });

  it('lists the configured rules through the rule manager, and the $Default rule of a subscription without rules', async () => {
    const list = async (sub: string): Promise<RuleProperties[]> => {
      const out: RuleProperties[] = [];
      for await (const r of client.createRuleManager('fleet.events', sub).listRules()) out.push(r);
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
