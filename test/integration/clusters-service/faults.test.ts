import { Writable } from 'node:stream';
import {
  ClustersServiceBadResponseError,
  ClustersServiceClient,
  ClustersServiceClientError,
  ClustersServiceConnectionError,
  ClustersServiceServerError,
  ClustersServiceTimeoutError,
  isOutcomeUnknown,
  type ClustersServiceCallEvent,
  type ClustersServiceClientOptions,
} from '../../../src/clusters-service';
import { mapClusterStatus } from '../../../src/domain/cs-mapping';
import { createLogger } from '../../../src/logging/logger';
import { startClustersServiceSimulator, type ClustersServiceSimulator } from '@opstream/clusters-service-simulator';
import { waitFor } from '../../helpers/wait-for';
import { createBody, failureOf, newClusterId, newIdentity } from './helpers';

const FAST_RETRY = { retries: 3, initialDelayMs: 5, maxDelayMs: 20, jitter: 0 };

describe('Clusters Service client against the simulator: faults', () => {
  let sim: ClustersServiceSimulator;
  let events: ClustersServiceCallEvent[];

  const client = (options: Partial<ClustersServiceClientOptions> = {}): ClustersServiceClient =>
    new ClustersServiceClient({ baseUrl: sim.url, retry: FAST_RETRY, onCall: (e) => events.push(e), ...options });

  beforeAll(async () => {
    sim = await startClustersServiceSimulator({ durations: { pendingMs: 0, validatingMs: 0, installingMs: 0 } });
  });
  afterAll(() => sim.close());
  beforeEach(() => {
    sim.admin.reset();
    sim.admin.setDurations({ pendingMs: 0, validatingMs: 0, installingMs: 0 });
    events = [];
  });

  it('5xx on a GET is retried with backoff until it succeeds; every attempt reaches the metrics hook', async () => {
    const cs = client();
    const id = newClusterId();
    await cs.createCluster(createBody(newIdentity(), id));
    sim.admin.addFault({ kind: 'error', endpoint: 'GET /clusters/{id}/status', status: 503, times: 2 });
    events = [];
    expect((await cs.getClusterStatus(id)).state).toBe('ready');
    expect(events.map((e) => [e.endpoint, e.status, e.attempt])).toEqual([
      ['GET /clusters/{id}/status', 503, 0],
      ['GET /clusters/{id}/status', 503, 1],
      ['GET /clusters/{id}/status', 200, 2],
    ]);
    expect(events.every((e) => e.durationMs >= 0)).toBe(true);
    expect(sim.admin.count('GET /clusters/{id}/status', 503)).toBe(2);
  });

  it('a GET that keeps failing gives up after the policy retries with a retriable ServerError', async () => {
    const cs = client();
    sim.admin.addFault({ kind: 'error', endpoint: 'GET /clusters/{id}', status: 500 });
    const err = await failureOf(cs.getCluster('abc'));
    expect(err).toBeInstanceOf(ClustersServiceServerError);
    expect(err).toMatchObject({ status: 500, retriable: true, endpoint: 'GET /clusters/{id}' });
    expect(sim.admin.count('GET /clusters/{id}', 500)).toBe(FAST_RETRY.retries + 1);
  });

  it('5xx on POST create is not retried', async () => {
    const cs = client();
    sim.admin.addFault({ kind: 'error', endpoint: 'POST /clusters', status: 503, times: 1 });
    const identity = newIdentity();
    const err = await failureOf(cs.createCluster(createBody(identity, newClusterId())));
    expect(err).toBeInstanceOf(ClustersServiceServerError);
    expect(sim.admin.count('POST /clusters')).toBe(1);
    expect(isOutcomeUnknown(err)).toBe(false);
    expect(await cs.findClusterByAzureIdentity(identity)).toBeUndefined();
  });

  it('5xx at a rate: idempotent reads still succeed, some attempts failed', async () => {
    const cs = client({ retry: { ...FAST_RETRY, retries: 10 } });
    const id = newClusterId();
    await cs.createCluster(createBody(newIdentity(), id));
    sim.admin.addFault({ kind: 'error', endpoint: 'GET /clusters/{id}/status', status: 502, rate: 0.4 });
    for (let i = 0; i < 20; i++) expect((await cs.getClusterStatus(id)).state).toBe('ready');
    expect(sim.admin.count('GET /clusters/{id}/status', 200)).toBe(20);
    expect(sim.admin.count('GET /clusters/{id}/status', 502)).toBeGreaterThan(0);
  });

  it('create succeeds but the response is lost: outcome unknown, recovered by search with the same id', async () => {
    const cs = client();
    sim.admin.addFault({ kind: 'drop-response', endpoint: 'POST /clusters', times: 1 });
    const identity = newIdentity();
    const id = newClusterId();
    const err = await failureOf(cs.createCluster(createBody(identity, id)));
    expect(err).toBeInstanceOf(ClustersServiceConnectionError);
    expect(isOutcomeUnknown(err)).toBe(true);
    expect(sim.admin.count('POST /clusters')).toBe(1);
    expect(sim.admin.count('POST /clusters', 'dropped')).toBe(1);
    expect((await cs.findClusterByAzureIdentity(identity))?.id).toBe(id);
  });

  it('a dropped response on a GET is retried transparently', async () => {
    const cs = client();
    const id = newClusterId();
    await cs.createCluster(createBody(newIdentity(), id));
    sim.admin.addFault({ kind: 'drop-response', endpoint: 'GET /clusters/{id}', times: 1 });
    events = [];
    expect((await cs.getCluster(id)).id).toBe(id);
    expect(events.map((e) => e.status)).toEqual(['connection-error', 200]);
  });

  it('latency beyond the timeout: a GET times out (retriable), a POST times out with an unknown outcome', async () => {
    const cs = client({ requestTimeoutMs: 150, retry: { ...FAST_RETRY, retries: 1 } });
    sim.admin.addFault({ kind: 'latency', latencyMs: 1000 });
    const get = await failureOf(cs.getCluster('abc'));
    expect(get).toBeInstanceOf(ClustersServiceTimeoutError);
    expect(get).toMatchObject({ retriable: true, outcomeUnknown: false, timeoutMs: 150 });
    expect(events.filter((e) => e.status === 'timeout')).toHaveLength(2);

    const identity = newIdentity();
    const id = newClusterId();
    const post = await failureOf(cs.createCluster(createBody(identity, id)));
    expect(post).toBeInstanceOf(ClustersServiceTimeoutError);
    expect(isOutcomeUnknown(post)).toBe(true);
    sim.admin.clearFaults();
    // The server still performs the create after its latency: the caller must search, not re-post.
    const adopted = await waitFor(() => cs.findClusterByAzureIdentity(identity), { timeoutMs: 10_000 });
    expect(adopted.id).toBe(id);
  });

  it('latency below the timeout only slows the call', async () => {
    const cs = client({ requestTimeoutMs: 5000 });
    sim.admin.addFault({ kind: 'latency', endpoint: 'GET /clusters', latencyMs: 100 });
    expect((await cs.listClusters()).total).toBe(0);
    expect(events[0]?.durationMs).toBeGreaterThanOrEqual(90);
  });

  it('error state with OCM4001: inflight checks become MultipleErrorsOccurred', async () => {
    const cs = client();
    sim.admin.addProvisionFailure({
      code: 'OCM4001',
      message: 'Inflight checks failed',
      inflightChecks: [
        { name: 'egress', status: 'failed', error: 'egress to quay.io blocked' },
        { name: 'dns', status: 'failed', error: 'cannot resolve api.example' },
        { name: 'network_security_group', status: 'passed' },
      ],
      times: 1,
    });
    const id = newClusterId();
    await cs.createCluster(createBody(newIdentity(), id));
    const observation = await cs.observeClusterStatus(id);
    expect(observation).toMatchObject({ found: true, status: { state: 'error', provision_error_code: 'OCM4001' } });
    const input = { request: 'Create' as const, current: 'Provisioning' as const, observation };
    expect(mapClusterStatus(input)).toEqual({ kind: 'need-inflight-checks' });
    const inflightChecks = await cs.getInflightChecks(id);
    expect(inflightChecks.map((c) => [c.name, c.status])).toEqual([
      ['egress', 'failed'],
      ['dns', 'failed'],
      ['network_security_group', 'passed'],
    ]);
    expect(mapClusterStatus({ ...input, inflightChecks })).toEqual({
      kind: 'set',
      status: 'Failed',
      error: {
        code: 'MultipleErrorsOccurred',
        message: 'Cluster provisioning failed due to multiple errors',
        details: [
          { code: 'InternalServerError', message: 'egress to quay.io blocked' },
          { code: 'InternalServerError', message: 'cannot resolve api.example' },
        ],
      },
    });
  });

  it('error state forced on an existing cluster carries its provision error code and message', async () => {
    const cs = client();
    const id = newClusterId();
    await cs.createCluster(createBody(newIdentity(), id));
    sim.admin.failCluster(id, { code: 'OCM3001', message: 'Quota exceeded for Standard_D8s_v3' });
    const observation = await cs.observeClusterStatus(id);
    expect(mapClusterStatus({ request: 'Create', current: 'Provisioning', observation })).toEqual({
      kind: 'set',
      status: 'Failed',
      error: { code: 'OCM3001', message: 'Quota exceeded for Standard_D8s_v3' },
    });
  });

  it('a bad request gets an OCM error body', async () => {
    const cs = client();
    const body = createBody(newIdentity());
    const err = await failureOf(cs.createCluster({ ...body, azure: { ...body.azure, tenant_id: '' } }));
    expect(err).toBeInstanceOf(ClustersServiceClientError);
    expect(err).toMatchObject({
      status: 400,
      code: 'CLUSTERS-MGMT-400',
      reason: 'body.azure.tenant_id must NOT have fewer than 1 characters',
      retriable: false,
    });
  });

  it('a response that does not match its schema is a BadResponse, not a crash', async () => {
    const cs = client({
      fetch: async () =>
        new Response(JSON.stringify({ kind: 'ClusterStatus', id: 'x' }), { status: 200, headers: { 'content-type': 'application/json' } }),
    });
    const err = await failureOf(cs.getClusterStatus('x'));
    expect(err).toBeInstanceOf(ClustersServiceBadResponseError);
    expect((err as Error).message).toContain('state is required');
    const notJson = client({ fetch: async () => new Response('<html>', { status: 200 }) });
    expect(await failureOf(notJson.getCluster('x'))).toBeInstanceOf(ClustersServiceBadResponseError);
  });

  it('a create answered with another id than the one chosen is an error', async () => {
    const cs = client({
      fetch: async () =>
        new Response(JSON.stringify({ kind: 'Cluster', id: 'other', href: '/api/aro_hcp/v1alpha1/clusters/other' }), { status: 201 }),
    });
    const err = await failureOf(cs.createCluster(createBody(newIdentity(), 'chosen')));
    expect(err).toBeInstanceOf(ClustersServiceBadResponseError);
    expect((err as Error).message).toContain('asked to create cluster "chosen" but got "other"');
  });

  it('connection refused: a retriable connection error whose outcome is known', async () => {
    const closed = await startClustersServiceSimulator();
    const url = closed.url;
    await closed.close();
    const cs = new ClustersServiceClient({ baseUrl: url, retry: { ...FAST_RETRY, retries: 1 } });
    const err = await failureOf(cs.getCluster('abc'));
    expect(err).toBeInstanceOf(ClustersServiceConnectionError);
    expect(err).toMatchObject({ retriable: true, outcomeUnknown: false });
    expect((err as Error).message).toContain('ECONNREFUSED');
  });

  it('the caller can cancel a call and its retries', async () => {
    const cs = client();
    sim.admin.addFault({ kind: 'latency', latencyMs: 2000 });
    const controller = new AbortController();
    const pending = failureOf(cs.getCluster('abc', { signal: controller.signal }));
    controller.abort(new Error('shutting down'));
    expect(((await pending) as Error).message).toBe('shutting down');
  });
});

describe('Clusters Service client: bearer token', () => {
  const TOKEN = 'sekrit-token-value-123';
  let sim: ClustersServiceSimulator;

  beforeAll(async () => {
    sim = await startClustersServiceSimulator({ token: TOKEN });
  });
  afterAll(() => sim.close());

  it('without the token: 401, not retried, and the token never appears in errors or logs', async () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const logger = createLogger({ level: 'debug', format: 'json', stream });
    const wrong = new ClustersServiceClient({ baseUrl: sim.url, token: 'wrong', logger, retry: FAST_RETRY });
    const err = await failureOf(wrong.getCluster('abc'));
    expect(err).toMatchObject({ status: 401, retriable: false });
    expect(sim.admin.count('GET /clusters/{id}', 401)).toBe(1);

    const right = new ClustersServiceClient({ baseUrl: sim.url, token: async () => TOKEN, logger, retry: FAST_RETRY });
    sim.admin.addFault({ kind: 'error', status: 503, times: 1 });
    const list = await right.listClusters();
    expect(list.total).toBe(0);
    expect(lines.length).toBeGreaterThan(0); // the retry was logged
    expect(lines.join('\n')).not.toContain(TOKEN);
    expect(JSON.stringify(err)).not.toContain(TOKEN);
    expect((err as Error).message).not.toContain(TOKEN);
  });
});
