import { ConfigError, parseConfig, parseDuration } from '@opstream/service-bus-emulator/config';
import { compileSqlAction, compileSqlFilter, SqlFilterError, SqlMessageView, SqlValue } from '@opstream/service-bus-emulator/sql-filter';
import { mapEntries, parseTransfer, withApplicationProperties, splitSections, SECTION } from '@opstream/service-bus-emulator/sections';
import { encodeMessage, types } from '@opstream/service-bus-emulator/amqp';
import { Deadlines } from '@opstream/service-bus-emulator/deadlines';

const view = (user: Record<string, SqlValue>, sys: Record<string, SqlValue> = {}): SqlMessageView => ({
  user: (n) => user[n],
  system: (n) => sys[n.toLowerCase()],
});

describe('service bus SQL filter subset', () => {
  it.each([
    ["color = 'red'", { color: 'red' }, true],
    ["color <> 'red'", { color: 'blue' }, true],
    ["color != 'red'", {}, false],
    ['size > 10 AND size <= 20', { size: 15 }, true],
    ['size > 10 OR missing = 1', { size: 5 }, false],
    ['NOT (size > 10)', { size: 5 }, true],
    ['NOT missing = 1', {}, false],
    ["kind IN ('a', 'b')", { kind: 'b' }, true],
    ["kind NOT IN ('a', 'b')", { kind: 'c' }, true],
    ["name LIKE 'x%'", { name: 'xylo' }, true],
    ["name LIKE 'x_'", { name: 'xyz' }, false],
    ["name NOT LIKE '%!%%' ESCAPE '!'", { name: '50%' }, false],
    ['EXISTS(flag)', { flag: false }, true],
    ['NOT EXISTS(flag)', {}, true],
    ['flag IS NULL', {}, true],
    ['flag IS NOT NULL', { flag: 1 }, true],
    ['size * 2 + 1 = 21', { size: 10 }, true],
    ["user.color = 'red' AND sys.Label = 'l1'", { color: 'red' }, true],
    ["[my prop] = 'x'", { 'my prop': 'x' }, true],
    ['1 = 1', {}, true],
    ["size = '10'", { size: 10 }, false],
  ])('%s', (expr, user, expected) => {
    expect(compileSqlFilter(expr)(view(user, { label: 'l1' }))).toBe(expected);
  });

  it('refuses what it cannot parse', () => {
    expect(() => compileSqlFilter("color = 'red")).toThrow(SqlFilterError);
    expect(() => compileSqlFilter('color = ')).toThrow(SqlFilterError);
    expect(() => compileSqlFilter('a = 1 b')).toThrow(SqlFilterError);
  });
});

describe('service bus Config.json', () => {
  it('reads the official emulator format with defaults', () => {
    const ns = parseConfig({
      UserConfig: {
        Namespaces: [
          {
            Name: 'sbemulatorns',
            Queues: [
              {
                Name: 'q',
                Properties: { LockDuration: 'PT30S', MaxDeliveryCount: 5, RequiresSession: true, DefaultMessageTimeToLive: 'PT1H' },
              },
            ],
            Topics: [{ Name: 't', Properties: {}, Subscriptions: [{ Name: 's', Properties: {} }] }],
          },
        ],
      },
    });
    expect(ns.queues[0].settings).toMatchObject({
      lockDurationMs: 30_000,
      maxDeliveryCount: 5,
      requiresSession: true,
      defaultTtlMs: 3_600_000,
    });
    expect(ns.topics[0].subscriptions[0].rules).toEqual([{ name: '$Default', kind: 'true' }]);
  });

  it('compiles rule actions: SET user and settable system properties from expressions, REMOVE user ones; other sys properties and junk are refused', () => {
    const act = compileSqlAction("SET priority = 'high', weight = weight * 2; REMOVE color");
    expect(act(view({ weight: 3, color: 'red' }))).toEqual({ set: { priority: 'high', weight: 6 }, remove: ['color'], system: {} });
    expect(compileSqlAction('set [odd name] = null')(view({}))).toEqual({ set: { 'odd name': null }, remove: [], system: {} });
    expect(compileSqlAction("SET sys.To = 'Entity', sys.Label = 'l'; SET sys.CorrelationId = NULL")(view({}))).toEqual({
      set: {},
      remove: [],
      system: { to: 'Entity', subject: 'l', correlation_id: null },
    });
    expect(() => compileSqlAction('SET sys.SequenceNumber = 1')).toThrow(SqlFilterError);
    expect(() => compileSqlAction('REMOVE sys.To')).toThrow(/cannot be removed/);
    expect(() => compileSqlAction('priority = 1')).toThrow(/SET or REMOVE/);
    expect(() => compileSqlAction('')).toThrow(/empty/);
    const ns = parseConfig({
      UserConfig: {
        Namespaces: [
          {
            Topics: [
              {
                Name: 't',
                Subscriptions: [
                  {
                    Name: 's',
                    Rules: [
                      {
                        Name: 'r',
                        Properties: { FilterType: 'Sql', SqlFilter: { SqlExpression: '1=1' }, Action: { SqlExpression: "SET a = 'b'" } },
                      },
                    ],
                  },
                ],
              },
            ],
          },
        ],
      },
    });
    expect(ns.topics[0].subscriptions[0].rules[0].action).toBe("SET a = 'b'");
    expect(() =>
      parseConfig({
        UserConfig: {
          Namespaces: [
            {
              Topics: [
                {
                  Name: 't',
                  Subscriptions: [
                    {
                      Name: 's',
                      Rules: [
                        {
                          Name: 'r',
                          Properties: {
                            FilterType: 'Sql',
                            SqlFilter: { SqlExpression: '1=1' },
                            Action: { SqlExpression: 'SET sys.DeliveryCount = 2' },
                          },
                        },
                      ],
                    },
                  ],
                },
              ],
            },
          ],
        },
      }),
    ).toThrow(/Action.SqlExpression.*sys.DeliveryCount/);
  });

  it('parses ISO 8601 durations and refuses the rest', () => {
    expect(parseDuration('PT1M')).toBe(60_000);
    expect(parseDuration('P1DT1H')).toBe(90_000_000);
    expect(parseDuration('PT0.5S')).toBe(500);
    expect(parseDuration('P10675199DT2H48M5.4775807S')).toBe(Infinity);
    expect(() => parseDuration('60s')).toThrow(ConfigError);
  });

  it('names what is wrong', () => {
    expect(() => parseConfig({ UserConfig: { Namespaces: [{ Queues: [{ Name: 'q' }, { Name: 'Q' }] }] } })).toThrow(/used twice/);
    expect(() => parseConfig({ UserConfig: { Namespaces: [{ Queues: [{ Name: 'q', Properties: { Status: 'Paused' } }] }] } })).toThrow(
      /Status must be one of Active, Disabled, SendDisabled, ReceiveDisabled/,
    );
    expect(() =>
      parseConfig({
        UserConfig: {
          Namespaces: [
            {
              Topics: [
                {
                  Name: 't',
                  Subscriptions: [
                    { Name: 's', Rules: [{ Name: 'r', Properties: { FilterType: 'Sql', SqlFilter: { SqlExpression: 'a = ' } } }] },
                  ],
                },
              ],
            },
          ],
        },
      }),
    ).toThrow(/SqlExpression/);
  });
});

describe('service bus message sections', () => {
  it('keeps the bare message bytes and splices application properties', () => {
    const bytes = encodeMessage({
      message_id: 'm1',
      application_properties: { a: 1 },
      message_annotations: { 'x-opt-partition-key': 'p' },
      body: types.wrap_binary(Buffer.from('hi')),
    });
    const t = parseTransfer(bytes);
    expect(t.fields.messageId).toBe('m1');
    expect(t.annotations.map((e) => [e.key, e.value])).toEqual([['x-opt-partition-key', 'p']]);
    const spliced = withApplicationProperties(t.bare, { DeadLetterReason: 'r' });
    const app = splitSections(spliced).find((s) => s.code === SECTION.applicationProperties)!;
    expect(mapEntries(app.bytes).map((e) => [e.key, e.value])).toEqual([
      ['a', 1],
      ['DeadLetterReason', 'r'],
    ]);
  });

  it('gives a message without an id one', () => {
    expect(parseTransfer(encodeMessage({ body: 'x' })).fields.messageId).toMatch(/^[0-9a-f]{32}$/);
  });
});

describe('service bus deadlines', () => {
  it('runs due callbacks in time order', () => {
    let now = 0;
    const d = new Deadlines(() => now);
    const seen: number[] = [];
    for (const at of [30, 10, 20]) d.add(at, () => seen.push(at));
    now = 25;
    d.fire();
    expect(seen).toEqual([10, 20]);
    now = 30;
    d.fire();
    expect(seen).toEqual([10, 20, 30]);
    d.stop();
  });
});
