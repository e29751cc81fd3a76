import { Writable } from 'node:stream';
import { trace } from '@opentelemetry/api';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import {
  ClustersServiceBadResponseError,
  ClustersServiceClient,
  ClustersServiceConnectionError,
  ClustersServiceServerError,
  isOutcomeUnknown,
  type ClustersServiceClientOptions,
} from '../../../src/clusters-service';
import { createLogger } from '../../../src/logging/logger';
import { startClustersServiceSimulator, type ClustersServiceSimulator } from '@opstream/clusters-service-simulator';
import { waitFor } from '../../helpers/wait-for';
import { adminCall, createBody, failureOf, newClusterId, newIdentity } from './helpers';

const FAST_RETRY = { retries: 3, initialDelayMs: 5, maxDelayMs: 20, jitter: 0 };
const CREDENTIAL = 'GET /clusters/{id}/break_glass_credentials/{credential}';

/**
 * Break-glass credentials and external auths on the real clock, with faults and admin calls made as
 * an out-of-process test would (over /_admin), and the kubeconfig kept out of every log line, span
 * and error the client makes.
 */
describe('Clusters Service simulator: faults, admin and secrecy of break-glass credentials and external auths', () => {
  let sim: ClustersServiceSimulator;
  const exported = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exported)] });
  let logged = '';
  const logger = createLogger({
    level: 'debug',
    format: 'json',
    stream: new Writable({ write: (chunk: Buffer, _enc, done) => ((logged += chunk.toString()), done()) }),
  });
  const client = (options: Partial<ClustersServiceClientOptions> = {}): ClustersServiceClient =>
    new ClustersServiceClient({ baseUrl: sim.url, retry: FAST_RETRY, logger, ...options });
  const admin = (method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown }> =>
    adminCall(sim, method, path, body);

  beforeAll(async () => {
    provider.register();
    sim = await startClustersServiceSimulator({ durations: { pendingMs: 0, validatingMs: 0, installingMs: 0 } });
  });
  afterAll(async () => {
    await sim.close();
    await provider.shutdown();
    trace.disable();
  });
  beforeEach(async () => {
    expect((await admin('POST', '/reset')).status).toBe(204);
    expect(
      (await admin('PUT', '/durations', { pendingMs: 0, validatingMs: 0, installingMs: 0, credentialIssueMs: 50, externalAuthMs: 50 }))
        .json,
    ).toMatchObject({
      credentialIssueMs: 50,
      credentialRevokeMs: 1000,
      externalAuthMs: 50,
    });
  });

  async function readyCluster(cs: ClustersServiceClient): Promise<string> {
    const id = newClusterId();
    await cs.createCluster(createBody(newIdentity(), id));
    return id;
  }

  it('durations refuse an unknown name and list the new ones', async () => {
    const refused = await admin('PUT', '/durations', { credentialMs: 5 });
    expect(refused).toMatchObject({
      status: 400,
      json: { reason: expect.stringContaining('credentialIssueMs, credentialRevokeMs, externalAuthMs') },
    });
  });

  it('faults by endpoint: a credential GET is retried through 503s, a POST is not; both are counted', async () => {
    const cs = client();
    const clusterId = await readyCluster(cs);
    const { id } = await cs.requestBreakGlassCredential(clusterId, {});
    expect((await admin('POST', '/faults', { kind: 'error', endpoint: CREDENTIAL, status: 503, times: 2 })).status).toBe(201);
    expect((await cs.getBreakGlassCredential(clusterId, id)).id).toBe(id);
    expect(sim.admin.count(CREDENTIAL, 503)).toBe(2);
    expect(sim.admin.count(CREDENTIAL, 200)).toBe(1);

    await admin('POST', '/faults', { kind: 'error', endpoint: 'POST /clusters/{id}/break_glass_credentials', status: 500, times: 1 });
    expect(await failureOf(cs.requestBreakGlassCredential(clusterId, {}))).toBeInstanceOf(ClustersServiceServerError);
    expect(sim.admin.count('POST /clusters/{id}/break_glass_credentials', 500)).toBe(1);

    await admin('POST', '/faults', {
      kind: 'error',
      endpoint: 'PATCH /clusters/{id}/external_auth_config/external_auths/{externalAuth}',
      status: 503,
    });
    await cs.createExternalAuth(clusterId, { id: 'ea', issuer: { url: 'https://issuer.example', audiences: ['a'] } });
    expect(
      await failureOf(cs.updateExternalAuth(clusterId, 'ea', { issuer: { url: 'https://x.example', audiences: ['b'] } })),
    ).toBeInstanceOf(ClustersServiceServerError);
    expect(sim.admin.count('PATCH /clusters/{id}/external_auth_config/external_auths/{externalAuth}', 503)).toBe(1);
  });

  it('a credential request whose answer is lost is found again by its chosen id', async () => {
    const cs = client();
    const clusterId = await readyCluster(cs);
    sim.admin.addFault({ kind: 'drop-response', endpoint: 'POST /clusters/{id}/break_glass_credentials', times: 1 });
    const err = await failureOf(cs.requestBreakGlassCredential(clusterId, { id: 'chosen' }));
    expect(err).toBeInstanceOf(ClustersServiceConnectionError);
    expect(isOutcomeUnknown(err)).toBe(true);
    expect(sim.admin.count('POST /clusters/{id}/break_glass_credentials', 'dropped')).toBe(1);
    expect(await cs.observeBreakGlassCredential(clusterId, 'chosen')).toMatchObject({ found: true, status: { id: 'chosen' } });
  });

  it('admin over HTTP: failed credential requests, a failed revocation, an external auth in error', async () => {
    const cs = client();
    const clusterId = await readyCluster(cs);
    expect((await admin('POST', `/clusters/${clusterId}/break_glass_credentials/failures`, { count: 1 })).status).toBe(204);
    const failing = await cs.requestBreakGlassCredential(clusterId, {});
    const fine = await cs.requestBreakGlassCredential(clusterId, {});
    await waitFor(async () => (await cs.getBreakGlassCredential(clusterId, fine.id)).status === 'issued');
    expect((await cs.getBreakGlassCredential(clusterId, failing.id)).status).toBe('failed');

    expect((await admin('PUT', '/durations', { credentialRevokeMs: 50 })).status).toBe(200);
    expect((await admin('POST', `/clusters/${clusterId}/break_glass_credentials/revocation_failure`)).status).toBe(204);
    await cs.revokeBreakGlassCredentials(clusterId);
    await waitFor(async () => (await cs.getBreakGlassCredential(clusterId, fine.id)).status === 'failed', {
      describe: () => 'the revoked credential to end failed',
    });
    expect((await admin('POST', `/clusters/${newClusterId()}/break_glass_credentials/failures`)).status).toBe(404);

    await cs.createExternalAuth(clusterId, { id: 'ea', issuer: { url: 'https://issuer.example', audiences: ['a'] } });
    expect((await admin('POST', `/clusters/${clusterId}/external_auths/ea/error`, { message: 'bad issuer' })).status).toBe(204);
    expect((await cs.getExternalAuth(clusterId, 'ea')).status).toMatchObject({ state: { value: 'error' }, message: 'bad issuer' });
  });

  it('the kubeconfig is in no log line, span or error of the client, whatever the answer', async () => {
    const cs = client();
    const clusterId = await readyCluster(cs);
    const { id } = await cs.requestBreakGlassCredential(clusterId, {});
    const kubeconfig = await waitFor(async () => (await cs.getBreakGlassCredential(clusterId, id)).kubeconfig);
    const secretPart = /client-key-data: (\S+)/.exec(kubeconfig)?.[1] as string;
    expect(secretPart.length).toBeGreaterThan(20);

    // A retried read logs a line; then answers the client cannot use, with the kubeconfig inside.
    sim.admin.addFault({ kind: 'error', endpoint: CREDENTIAL, status: 503, times: 1 });
    await cs.getBreakGlassCredential(clusterId, id);
    expect(logged).toContain('retrying');
    const tampered = (change: (body: string) => string): ClustersServiceClient =>
      client({
        fetch: async (url, init) => {
          const res = await fetch(url, init);
          return new Response(change(await res.text()), { status: res.status, headers: res.headers });
        },
      });
    const errors = [
      // fails its schema (status is not a string)
      await failureOf(tampered((b) => b.replace('"status":"issued"', '"status":42')).getBreakGlassCredential(clusterId, id)),
      // not JSON: the parser's own message would quote the text around the fault
      await failureOf(tampered((b) => b.replace('"kubeconfig":"', '"kubeconfig":')).getBreakGlassCredential(clusterId, id)),
      // another id than the one asked for
      await failureOf(tampered((b) => b.replace(/"id":"[^"]+"/, '"id":"other"')).requestBreakGlassCredential(clusterId, { id: 'asked' })),
    ];
    for (const err of errors) expect(err).toBeInstanceOf(ClustersServiceBadResponseError);

    const chain = (err: unknown): string[] => {
      const out: string[] = [];
      for (let e = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
        out.push(e.message, String(e.stack), JSON.stringify((e as { context?: unknown }).context ?? {}));
      }
      return out;
    };
    const spans = exported
      .getFinishedSpans()
      .map((s) => JSON.stringify({ name: s.name, attributes: s.attributes, events: s.events, status: s.status }));
    expect(spans.some((s) => s.includes('break_glass_credentials'))).toBe(true);
    for (const text of [logged, ...spans, ...errors.flatMap(chain)]) {
      expect(text).not.toContain(secretPart);
      expect(text).not.toContain('apiVersion');
    }
  });
});
