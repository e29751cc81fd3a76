import { startClustersServiceSimulator, type ApiCallRecord, type ClustersServiceSimulator } from '@opstream/clusters-service-simulator';
import {
  FrontendSimulator,
  startNotificationReceiver,
  type NotificationReceiver,
  type WrittenOperation,
} from '@opstream/frontend-simulator';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '@opstream/otlp-receiver';
import { spawnCli, type CliProcess } from '../helpers/cli';
import { startTestCosmos, type TestCosmos } from '../helpers/cosmos';
import { FAST_CS_DURATIONS } from '../helpers/running-instance';
import { uniqueName, waitFor } from '../helpers/wait-for';

/**
 * A cluster create followed through its traces, as an OpenTelemetry Collector receives them:
 * `opstream run` (a child process, as operators run it) exports OTLP/HTTP to a receiver started here
 * because OTEL_EXPORTER_OTLP_ENDPOINT says so; a Clusters Service fault is injected through the
 * simulator's admin API, and the frontend keeps the subscription lock a moment after its writes so
 * that opstream's first write under the lock has to wait for it.
 */
const SPAN_KIND = { internal: 1, client: 3, consumer: 5 } as const;
const ERROR = 2;

interface LogLine {
  level: string;
  message: string;
  [field: string]: unknown;
}

describe('traces of a cluster create', () => {
  let otlp: OtlpReceiver;
  let cosmos: TestCosmos;
  let cs: ClustersServiceSimulator;
  let receiver: NotificationReceiver;
  let run: CliProcess;
  let frontend: FrontendSimulator;
  let opsUrl: string;
  const csCalls: ApiCallRecord[] = [];

  beforeAll(async () => {
    otlp = await startOtlpReceiver();
    cosmos = await startTestCosmos();
    cs = await startClustersServiceSimulator({ port: 0, durations: FAST_CS_DURATIONS, onCall: (call) => csCalls.push(call) });
    receiver = await startNotificationReceiver();
    const databaseId = uniqueName('traces');
    run = spawnCli(['run', '--log-format', 'json'], {
      OPSTREAM_LOG_SILENT: '0',
      OPSTREAM_COSMOS_ENDPOINT: cosmos.emu.endpoint,
      OPSTREAM_COSMOS_KEY: cosmos.emu.key,
      OPSTREAM_COSMOS_DATABASE: databaseId,
      OPSTREAM_COSMOS_CREATE_CONTAINERS: 'true',
      OPSTREAM_CLUSTERS_SERVICE_URL: cs.url,
      // ARM's notification receiver here listens on loopback (http): the development switch lets notifications reach it.
      OPSTREAM_NOTIFICATIONS_ALLOW_LOOPBACK: 'true',
      OPSTREAM_CHANGEFEED_START_FROM: 'beginning',
      OPSTREAM_CHANGEFEED_LEASE_ACQUIRE_INTERVAL_MS: '300',
      OPSTREAM_CHANGEFEED_MAX_POLL_DELAY_MS: '100',
      OPSTREAM_FOLLOW_INITIAL_DELAY_MS: '50',
      OPSTREAM_FOLLOW_MAX_DELAY_MS: '400',
      OPSTREAM_OPS_ADDR: '127.0.0.1:0',
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      // Export batches every 100 ms instead of 5 s (the SDK's standard variable).
      OTEL_BSP_SCHEDULE_DELAY: '100',
    });
    const started = await run.waitForStderr((l) => l.includes('"message":"ops server on '), 30_000, 'the ops server line');
    opsUrl = (JSON.parse(started) as { opsUrl: string }).opsUrl;
    await waitFor(async () => (await (await fetch(`${opsUrl}/metrics`)).text()).includes('\nopstream_changefeed_leases_owned 4\n'), {
      timeoutMs: 30_000,
      describe: () => 'every lease to be acquired',
    });
    frontend = new FrontendSimulator({ database: cosmos.client.database(databaseId), notificationBaseUrl: receiver.url });
  });

  afterAll(async () => {
    if (run && run.child.exitCode === null) run.child.kill('SIGKILL');
    await receiver?.close();
    await cs?.close();
    await cosmos?.close();
    await otlp?.close();
  });

  const terminal = async (op: WrittenOperation): Promise<string> =>
    String(((await receiver.waitForNotification(op.operationId, 60_000)).body as { status: unknown }).status);

  it('one trace per handling: batch → reconcile → lock wait, CS calls with a retry (traceparent and correlation ids sent), write-backs, ARM notification', async () => {
    const sub = crypto.randomUUID();
    await frontend.registerSubscription(sub, crypto.randomUUID());
    // The create's first Clusters Service call (the search by Azure identity) fails once with a 503.
    const fault = await fetch(`${cs.url}/_admin/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${cs.adminToken}` },
      body: JSON.stringify({ kind: 'error', endpoint: 'GET /clusters', status: 503, times: 1 }),
    });
    expect(fault.status).toBe(201);

    const lockConflicts = async (): Promise<number> => {
      const text = await (await fetch(`${opsUrl}/metrics`)).text();
      const line = text
        .split('\n')
        .find((l) => l.startsWith('opstream_cosmos_requests_total{') && l.includes('kind="write"') && l.includes('status="409"'));
      return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
    };
    const conflictsBefore = await lockConflicts();
    const create = await frontend.createCluster(
      sub,
      'rg',
      uniqueName('traced'),
      {},
      {
        // Released once opstream found the lock held (its lock create answered 409).
        holdLock: () =>
          waitFor(async () => (await lockConflicts()) > conflictsBefore, { describe: () => 'opstream to find the subscription lock held' }),
      },
    );
    expect(await terminal(create)).toBe('Succeeded');

    const ofOperation = (s: ReceivedSpan): boolean => s.attributes['opstream.operation.id'] === create.operationId;
    const spans = (): readonly ReceivedSpan[] => otlp.spans();
    const reconciles = (): ReceivedSpan[] => spans().filter((s) => s.name === 'reconcile Create' && ofOperation(s));
    const inTraceOf = (span: ReceivedSpan): ReceivedSpan[] => spans().filter((s) => s.traceId === span.traceId);
    const childrenOf = (span: ReceivedSpan): ReceivedSpan[] =>
      spans().filter((s) => s.parentSpanId === span.spanId && s.traceId === span.traceId);
    // The handling that notified ARM is the last; its spans arrive within an export interval.
    await waitFor(() => reconciles().some((r) => childrenOf(r).some((c) => c.name === 'ARM notification')), {
      describe: () => `the notifying handling's spans (reconcile spans so far: ${reconciles().length}, spans: ${spans().length})`,
    });

    // Every handling of the operation: a span naming it, its lease and the frontend's correlation ids.
    const all = reconciles();
    expect(all.length).toBeGreaterThanOrEqual(2);
    for (const r of all) {
      expect(r.attributes).toMatchObject({
        'opstream.subscription.id': create.partitionKey,
        'opstream.resource.id': create.externalId,
        'opstream.operation.request': 'Create',
        'opstream.correlation_request_id': create.correlationRequestId,
        'opstream.client_request_id': create.clientRequestId,
      });
      expect(typeof r.attributes['opstream.lease.token']).toBe('string');
      expect(['done', 'again']).toContain(r.attributes['opstream.outcome']);
      // Its own trace: under the batch (or relist) that brought the operation, or a root linked to it.
      const parent = spans().find((s) => s.spanId === r.parentSpanId);
      if (parent) expect(['change-feed batch', 'relist']).toContain(parent.name);
      else expect(r.links.length).toBe(1);
    }
    expect(new Set(all.map((r) => r.traceId)).size).toBe(all.length);

    // The dispatch: the first handling, a child of the change-feed batch that carried the document.
    const dispatch = all.find((r) => childrenOf(r).some((c) => c.name === 'POST /clusters'));
    if (!dispatch) throw new Error('no handling posted the cluster');
    const batch = spans().find((s) => s.spanId === dispatch.parentSpanId);
    expect(batch).toMatchObject({
      name: 'change-feed batch',
      kind: SPAN_KIND.consumer,
      attributes: { 'opstream.lease.token': dispatch.attributes['opstream.lease.token'] },
    });
    expect(batch?.parentSpanId).toBeUndefined();
    expect(dispatch.attributes['opstream.processor']).toBe('cluster-create');

    const steps = childrenOf(dispatch);
    // The lock wait: the frontend still held the lock; opstream's create of the lock document was refused (409) first.
    const lockWait = steps.find((s) => s.name === 'acquire subscription lock');
    if (!lockWait) throw new Error(`no lock wait under the dispatch: ${steps.map((s) => s.name).join(', ')}`);
    expect(lockWait.attributes['opstream.lock.wait_ms']).toBeGreaterThan(0);
    const lockAttempts = childrenOf(lockWait).filter((s) => s.kind === SPAN_KIND.client && s.attributes['db.collection.name'] === 'Locks');
    expect(lockAttempts.map((s) => s.attributes['db.response.status_code'])).toContain('409');
    expect(lockAttempts.at(-1)?.attributes['db.response.status_code']).toBe('201');

    // The Clusters Service search: a 503, then the retry (resend 1) answered 200; then the create.
    const searches = steps.filter((s) => s.name === 'GET /clusters').sort((a, b) => a.startTimeMs - b.startTimeMs);
    expect(searches.map((s) => s.attributes['http.response.status_code'])).toEqual([503, 200]);
    expect(searches[0]).toMatchObject({ kind: SPAN_KIND.client, status: { code: ERROR } });
    expect(searches[1]?.attributes['http.request.resend_count']).toBe(1);
    const post = steps.find((s) => s.name === 'POST /clusters');
    expect(post?.attributes['http.response.status_code']).toBe(201);

    // What Clusters Service received: each attempt's traceparent (this trace, that span) and the correlation ids.
    for (const span of [...searches, post as ReceivedSpan]) {
      const call = csCalls.find((c) => c.headers.traceparent?.split('-')[2] === span.spanId);
      if (!call) throw new Error(`Clusters Service got no request with the traceparent of span ${span.name} ${span.spanId}`);
      expect(call.headers.traceparent).toBe(`00-${dispatch.traceId}-${span.spanId}-01`);
      expect(call.headers['x-ms-correlation-request-id']).toBe(create.correlationRequestId);
      expect(call.headers['x-ms-client-request-id']).toBe(create.clientRequestId);
      expect(call.endpoint).toBe(span.name);
    }

    // The terminal write-back (Resource then Operation, as Cosmos requests under it) and the notification.
    const ending = all.find((r) =>
      childrenOf(r).some((c) => c.name === 'write-back' && c.attributes['opstream.operation.status'] === 'Succeeded'),
    );
    if (!ending) throw new Error('no handling wrote the operation Succeeded');
    const writeBack = childrenOf(ending).find((c) => c.name === 'write-back') as ReceivedSpan;
    expect(writeBack.attributes['opstream.write_back.written']).toBe(true);
    const written = inTraceOf(ending).filter((s) => s.kind === SPAN_KIND.client && s.attributes['db.system.name'] === 'azure.cosmosdb');
    expect(new Set(written.map((s) => s.attributes['db.collection.name']))).toEqual(new Set(['Locks', 'Resources', 'Operations']));
    const notifying = all.find((r) => childrenOf(r).some((c) => c.name === 'ARM notification')) as ReceivedSpan;
    const notification = childrenOf(notifying).find((c) => c.name === 'ARM notification') as ReceivedSpan;
    expect(notification).toMatchObject({ kind: SPAN_KIND.client, attributes: { 'opstream.operation.status': 'Succeeded' } });
    expect(notification.status.code).not.toBe(ERROR);

    // Every span carries the service's resource; nothing of this operation went out as an error but the 503.
    for (const s of inTraceOf(dispatch)) expect(s.resource['service.name']).toBe('opstream');
    const errors = all.flatMap((r) => inTraceOf(r)).filter((s) => s.status.code === ERROR);
    expect(errors.map((s) => s.name)).toEqual(['GET /clusters']);

    // The log lines about the operation carry the correlation ids, and those written within a handling its trace.
    const lines = run
      .stderr()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as LogLine)
      .filter((l) => l.operationId === create.operationId);
    expect(lines.length).toBeGreaterThanOrEqual(2);
    for (const l of lines)
      expect(l).toMatchObject({ correlationRequestId: create.correlationRequestId, clientRequestId: create.clientRequestId });
    const traced = lines.filter((l) => typeof l.traceId === 'string');
    expect(traced.length).toBeGreaterThanOrEqual(1);
    for (const l of traced) expect(all.map((r) => r.traceId)).toContain(l.traceId);
  });
});
