import { randomUUID } from 'crypto';
import type { WrittenOperation } from '@opstream/frontend-simulator';
import type { ExplainReport } from '../../src/inspect/explain/report';
import { validate } from '../../src/schemas/validator';
import { runCli } from '../helpers/cli';
import { Harness, readOperation, startHarness } from '../helpers/opstream-harness';
import { uniqueName, waitFor } from '../helpers/wait-for';

/**
 * ARM delivery is recorded on the Operation (`notificationDelivery`: when, after how many attempts,
 * with what answer) and `opstream explain` says it. Everything runs for real: the Cosmos emulator,
 * the Clusters Service simulator, the ARM notification receiver (told to refuse the first N POSTs of
 * an operation), an opstream instance, and the CLI spawned as an operator runs it.
 */
describe('ARM delivery recorded on the Operation', () => {
  jest.setTimeout(120_000);
  let h: Harness;
  let env: Record<string, string>;
  const sub = randomUUID();

  beforeAll(async () => {
    // Retries within a fraction of a second (the first pause is a sixtieth of this), not the production minute.
    h = await startHarness({ settings: { 'notifications.retryMaxDelayMs': 300 } });
    await h.frontend.registerSubscription(sub, randomUUID());
    env = {
      OPSTREAM_COSMOS_ENDPOINT: h.cosmos.emu.endpoint,
      OPSTREAM_COSMOS_KEY: h.cosmos.emu.key,
      OPSTREAM_COSMOS_DATABASE: h.databaseId,
    };
  });
  afterAll(() => h.close());

  /** A cluster Create whose notification the receiver refuses `refusals` times (with `status`) before taking it. */
  function create(prefix: string, refusals = 0, status = 503): Promise<WrittenOperation> {
    return h.frontend.createCluster(
      sub,
      'rg-delivery',
      uniqueName(prefix),
      {},
      {
        notificationUri: (id) => {
          h.receiver.failNext(id, refusals, status);
          return `${h.receiver.url}/notify/${id}`;
        },
      },
    );
  }

  /** The Operation once its notificationUri is cleared, checked against the Operation schema. */
  async function delivered(op: WrittenOperation): Promise<Record<string, unknown>> {
    const doc = await waitFor(
      async () => {
        const read = await readOperation(h, op);
        return read && read.notificationUri === undefined ? read : undefined;
      },
      { timeoutMs: 60_000, describe: () => `notificationUri of ${op.operationId} to be cleared` },
    );
    validate('operation', doc);
    return doc;
  }

  async function explainJson(id: string, diagnosis: RegExp): Promise<ExplainReport> {
    let last = '';
    return waitFor(
      async () => {
        const result = await runCli(['explain', id, '--json'], env);
        last = `exit ${result.code}: ${result.stdout.slice(0, 2000)} ${result.stderr}`;
        if (result.code !== 0) return undefined;
        const report = validate('explainReport', JSON.parse(result.stdout));
        return diagnosis.test(report.diagnosis) ? report : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 200, describe: () => `explain ${id} to say ${diagnosis}; last: ${last}` },
    );
  }

  it('a delivery that succeeds at once: delivered, 1 attempt, HTTP 200, when and by whom; explain says ARM was told', async () => {
    const op = await create('told');
    const received = await h.receiver.waitForNotification(op.operationId, 60_000);
    const doc = await delivered(op);
    const record = doc.notificationDelivery as Record<string, unknown>;
    expect(record).toEqual({
      state: 'delivered',
      attempts: 1,
      at: expect.any(String),
      httpStatus: 200,
      by: expect.stringMatching(/^first#/),
    });
    // Recorded when ARM's answer came back: after the receiver took the POST.
    expect(Date.parse(String(record.at))).toBeGreaterThanOrEqual(received.at - 5);
    expect(doc.notificationClaim).toBeUndefined();

    const report = await explainJson(op.operationId, /; ARM told at /);
    expect(report.diagnosis).toBe(
      `Succeeded ${/\d+ s/.exec(report.diagnosis)?.[0]} ago; ARM told at ${String(record.at)} after 1 attempt (HTTP 200)`,
    );
    expect(report.operation?.notification).toEqual({ state: 'sent', delivery: record });
    // In words: the notification row says the same.
    const text = await runCli(['explain', op.operationId], env);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(
      new RegExp(
        `\\n  notification +ARM told at ${String(record.at).replace(/\./g, '\\.')} \\(\\d+ s ago\\) after 1 attempt \\(HTTP 200\\) by first\\n`,
      ),
    );
  });

  it('a receiver that fails 3 times then takes it: delivered after 4 attempts, one notification received', async () => {
    const op = await create('retried', 3);
    await h.receiver.waitForNotification(op.operationId, 60_000);
    const doc = await delivered(op);
    expect(h.receiver.refusedFor(op.operationId)).toBe(3);
    expect(h.receiver.countFor(op.operationId)).toBe(1);
    expect(doc.notificationDelivery).toEqual({
      state: 'delivered',
      attempts: 4,
      at: expect.any(String),
      httpStatus: 200,
      by: expect.stringMatching(/^first#/),
    });
    const report = await explainJson(op.operationId, /; ARM told at /);
    expect(report.diagnosis).toMatch(/^Succeeded \d+ s ago; ARM told at \S+ after 4 attempts \(HTTP 200\)$/);
  });

  it('while ARM keeps failing: the Operation records each failed attempt and explain says so; then the delivery counts them all', async () => {
    // Refused until the test lets it through.
    const op = await create('failing', 1_000_000, 500);
    const failing = await explainJson(op.operationId, /; ARM delivery failing: /);
    expect(failing.diagnosis).toMatch(
      /^Succeeded \d+ s ago; ARM delivery failing: http:\/\/127\.0\.0\.1:\d+ answered HTTP 500: .*injected.*, attempt \d+ at \S+( \(claimed by first until \S+\))?$/,
    );
    expect(failing.operation?.notification).toMatchObject({
      state: 'pending',
      delivery: { state: 'failing', httpStatus: 500, by: expect.stringMatching(/^first#/) },
    });
    const text = await runCli(['explain', op.operationId], env);
    expect(text.stdout).toMatch(/\n {2}delivery +failing: attempt \d+ \d+ s ago \(HTTP 500\): http:\/\/127\.0\.0\.1:\d+ answered HTTP 500/);

    h.receiver.failNext(op.operationId, 0);
    await h.receiver.waitForNotification(op.operationId, 60_000);
    const doc = await delivered(op);
    const refused = h.receiver.refusedFor(op.operationId);
    expect(refused).toBeGreaterThanOrEqual(1);
    expect(doc.notificationDelivery).toMatchObject({ state: 'delivered', attempts: refused + 1, httpStatus: 200 });
    expect(h.receiver.countFor(op.operationId)).toBe(1);
  });
});
