import { startRunningInstance, type RunningInstance } from '../../helpers/running-instance';
import { uniqueName, waitFor } from '../../helpers/wait-for';

/** Parses the Prometheus text format into `name{labels}` → value. */
function samples(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const i = line.lastIndexOf(' ');
    out.set(line.slice(0, i), Number(line.slice(i + 1)));
  }
  return out;
}

function matching(all: Map<string, number>, pattern: RegExp): Array<[string, number]> {
  return [...all].filter(([k]) => pattern.test(k));
}

describe('ops server of a running instance', () => {
  let instance: RunningInstance;
  beforeAll(async () => {
    instance = await startRunningInstance();
  });
  afterAll(() => instance?.close());

  it('/metrics reports reaction latency, handlings by processor and outcome, leases, CS calls, lock waits and dead letters', async () => {
    const sub = crypto.randomUUID();
    await instance.frontend.registerSubscription(sub, crypto.randomUUID());
    const create = await instance.frontend.createCluster(sub, 'rg', uniqueName('m'));
    expect(await instance.terminal(create)).toBe('Succeeded');
    await instance.frontend.writeRawOperation({ id: crypto.randomUUID(), partitionKey: sub, status: 'Nonsense' });
    await waitFor(
      async () => (await (await fetch(`${instance.opsUrl}/metrics`)).text()).includes('opstream_dead_letters_total{reason="validation"} 1'),
      {
        describe: () => 'the dead letter to be counted',
      },
    );

    const res = await fetch(`${instance.opsUrl}/metrics`);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const m = samples(await res.text());
    expect(m.get('opstream_reaction_latency_seconds_count{request="Create"}')).toBeGreaterThanOrEqual(1);
    expect(m.get('opstream_reaction_latency_seconds_bucket{le="+Inf",request="Create"}')).toBe(
      m.get('opstream_reaction_latency_seconds_count{request="Create"}'),
    );
    expect(
      matching(m, /^opstream_operations_handled_total\{processor="cluster-create[^"]*",outcome="(done|again)"\}$/).length,
    ).toBeGreaterThanOrEqual(1);
    expect(m.get('opstream_changefeed_leases_owned')).toBe(4);
    const csCalls = matching(m, /^opstream_cs_calls_total\{endpoint="[^"]+",status="\d{3}"\}$/);
    expect(csCalls.length).toBeGreaterThanOrEqual(2); // at least the create and a status read
    expect(csCalls.some(([k]) => k.includes('status="201"') || k.includes('status="202"'))).toBe(true);
    // Succeeded at least; Provisioning too only when a status check happened to land in `installing`.
    expect(m.get('opstream_lock_wait_seconds_count')).toBeGreaterThanOrEqual(1);
    expect(m.get('opstream_dead_letters_total{reason="validation"}')).toBe(1);
    expect(m.get('opstream_operation_transitions_total{status="Succeeded"}')).toBeGreaterThanOrEqual(1);
    expect(m.get('opstream_arm_notifications_total{outcome="delivered"}')).toBeGreaterThanOrEqual(1);
    expect(m.has('process_cpu_seconds_total')).toBe(true);
    // Both lines of the queue are reported, and are empty once nothing is left to handle.
    expect(m.has('opstream_queue_waiting_resources{line="started"}')).toBe(true);
    await waitFor(async () => {
      const now = samples(await (await fetch(`${instance.opsUrl}/metrics`)).text());
      return (
        now.get('opstream_queue_waiting_resources{line="started"}') === 0 && now.get('opstream_queue_waiting_resources{line="new"}') === 0
      );
    });
    // Lag per owned lease, estimated for the scrape itself (no live page needed).
    const lags = matching(m, /^opstream_changefeed_lease_lag_changes\{lease="[^"]+"\}$/);
    expect(lags).toHaveLength(4);
    for (const [, lag] of lags) expect(lag).toBeGreaterThanOrEqual(0);
  });

  it('/readyz (on a port without a token) reads Cosmos at most once a second, however often it is asked', async () => {
    const metadataRequests = async (): Promise<number> =>
      matching(samples(await instance.app.metrics.registry.metrics()), /^opstream_cosmos_requests_total\{kind="metadata",/).reduce(
        (sum, [, n]) => sum + n,
        0,
      );
    const before = await metadataRequests();
    const started = Date.now();
    const concurrent = await Promise.all(Array.from({ length: 20 }, () => fetch(`${instance.opsUrl}/readyz`)));
    const sequential: Response[] = [];
    for (let i = 0; i < 20; i++) sequential.push(await fetch(`${instance.opsUrl}/readyz`));
    const elapsedMs = Date.now() - started;
    expect([...concurrent, ...sequential].map((r) => r.status)).toEqual(Array(40).fill(200));
    // One database read per second of asking at most (the first second included); uncached, 40.
    expect(await metadataRequests()).toBeLessThanOrEqual(before + Math.ceil(elapsedMs / 1000) + 1);
  });

  it('/readyz turns 503 when Cosmos becomes unreachable, naming the check, and 200 again when it is back', async () => {
    const ready = async (): Promise<{
      status: number;
      body: { ready: boolean; checks: Record<string, { ok: boolean; detail?: string }> };
    }> => {
      const res = await fetch(`${instance.opsUrl}/readyz`);
      return {
        status: res.status,
        body: (await res.json()) as { ready: boolean; checks: Record<string, { ok: boolean; detail?: string }> },
      };
    };
    const before = await ready();
    expect(before).toMatchObject({
      status: 200,
      body: {
        ready: true,
        checks: { cosmos: { ok: true }, changefeed: { ok: true, detail: '4 of 4 lease(s) held' }, progress: { ok: true } },
      },
    });

    instance.cosmos.emu.setFaults({ dropRate: 1 }); // every Cosmos request: connection closed without an answer
    try {
      const down = await waitFor(
        async () => {
          const r = await ready();
          return r.status === 503 ? r : undefined;
        },
        { timeoutMs: 20_000, describe: () => '/readyz to turn 503' },
      );
      expect(down.body.ready).toBe(false);
      expect(down.body.checks.cosmos.ok).toBe(false);
      expect(down.body.checks.cosmos.detail).toBeTruthy();
      expect((await fetch(`${instance.opsUrl}/healthz`)).status).toBe(200); // alive all the same
      const scrape = await fetch(`${instance.opsUrl}/metrics`, { signal: AbortSignal.timeout(10_000) }); // the lag refresh gives up, the scrape answers
      expect(scrape.status).toBe(200);
      expect(await scrape.text()).toContain('opstream_changefeed_leases_owned');
    } finally {
      instance.cosmos.emu.clearFaults();
    }
    await waitFor(async () => (await ready()).status === 200, { timeoutMs: 30_000, describe: () => '/readyz to be 200 again' });
    // And the pipeline works again.
    const sub = crypto.randomUUID();
    await instance.frontend.registerSubscription(sub, crypto.randomUUID());
    expect(await instance.terminal(await instance.frontend.createCluster(sub, 'rg', uniqueName('after')))).toBe('Succeeded');
  });
});
