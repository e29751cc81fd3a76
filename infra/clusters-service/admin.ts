/**
 * Test controls, in process (`simulator.admin.*`) and over HTTP under `/_admin` with
 * `Authorization: Bearer <admin token>` (same operations):
 *
 * | HTTP                                                   | in process                     |
 * |--------------------------------------------------------|--------------------------------|
 * | GET /_admin/durations, PUT /_admin/durations {…ms}      | durations(), setDurations(p)   |
 * | GET/POST/DELETE /_admin/faults, DELETE /_admin/faults/{id} | faults(), addFault(r), clearFaults(), removeFault(id) |
 * | POST/DELETE /_admin/provision-failures                  | addProvisionFailure(r), clearProvisionFailures() |
 * | POST /_admin/clusters/{id}/error {code, message?, description?, inflightChecks?} | failCluster(id, e) |
 * | POST /_admin/clusters/{id}/node_pools/{np}/error {message, recoverable?} | failNodePool(c, np, e) |
 * | POST /_admin/clusters/{id}/break_glass_credentials/failures {count?} | failNextCredentialRequests(id, n) |
 * | POST /_admin/clusters/{id}/break_glass_credentials/revocation_failure | failNextRevocation(id) |
 * | POST /_admin/clusters/{id}/external_auths/{ea}/error {message} | failExternalAuth(c, ea, e) |
 * | POST /_admin/clusters/{id}/external_auths/{ea}/awaiting_secret | awaitExternalAuthSecret(c, ea) |
 * | GET /_admin/clusters                                   | clusters()                     |
 * | GET/DELETE /_admin/counters                            | counters(), resetCounters()    |
 * | POST /_admin/reset                                     | reset()                        |
 * | GET /_admin/events                                     | events()                       |
 *
 * Durations apply to objects created (or updated, deleted) after the change.
 */
import type { BreakGlassCredentials } from './break-glass';
import type { CallCount, CallCounters } from './counters';
import type { EventPublisherCounts } from './event-publisher';
import type { ExternalAuths } from './external-auths';
import type { ActiveFault, FaultInjector, FaultRule } from './faults';
import type { Phase, SimulatorDurations } from './lifecycle';
import { OcmError } from './ocm-errors';
import type { Json, ProvisionError, ProvisionFailureRule, SimulatorStore } from './store';

export interface ClusterSnapshot {
  readonly id: string;
  readonly name: string;
  readonly state: Phase;
  readonly azure: Json;
  readonly nodePools: ReadonlyArray<{ readonly id: string; readonly state: Phase }>;
}

export interface SimulatorAdmin {
  durations(): SimulatorDurations;
  /** Merges `partial` into the durations; returns the result. */
  setDurations(partial: Partial<SimulatorDurations>): SimulatorDurations;
  addFault(rule: FaultRule): ActiveFault;
  removeFault(id: string): boolean;
  clearFaults(): void;
  faults(): ActiveFault[];
  addProvisionFailure(rule: ProvisionFailureRule): void;
  clearProvisionFailures(): void;
  /** Puts an existing cluster into `error` now. */
  failCluster(clusterId: string, error: ProvisionError): void;
  /** Puts an existing node pool into `error` (or `recoverable_error`) now. */
  failNodePool(clusterId: string, nodePoolId: string, error: { message: string; recoverable?: boolean }): void;
  /** The next `count` (default 1) break-glass credential requests of an existing cluster end `failed`. */
  failNextCredentialRequests(clusterId: string, count?: number): void;
  /** The next revocation of an existing cluster's credentials ends with one credential `failed`. */
  failNextRevocation(clusterId: string): void;
  /** Puts an existing external auth into `error` with `message` now. */
  failExternalAuth(clusterId: string, externalAuthId: string, error: { message: string }): void;
  /** An existing external auth reports `awaiting_secret` from now until its next PATCH. */
  awaitExternalAuthSecret(clusterId: string, externalAuthId: string): void;
  /** Every live cluster with its current state. */
  clusters(): ClusterSnapshot[];
  counters(): CallCount[];
  /** Calls to an endpoint such as `POST /clusters`, for one status or all. */
  count(endpoint: string, status?: number | 'dropped'): number;
  resetCounters(): void;
  /** Forgets clusters, faults, planned failures and counters; restores the initial durations. */
  reset(): void;
  /** State-change events published, lost and waiting; undefined when no Service Bus was given. */
  events(): EventPublisherCounts | undefined;
}

const DURATION_NAMES: ReadonlyArray<keyof SimulatorDurations> = [
  'pendingMs',
  'validatingMs',
  'installingMs',
  'updatingMs',
  'deleteStartMs',
  'uninstallingMs',
  'credentialIssueMs',
  'credentialRevokeMs',
  'externalAuthMs',
];

export function checkDurations(partial: unknown): Partial<SimulatorDurations> {
  if (partial === null || typeof partial !== 'object') throw new OcmError(400, 'durations must be an object of milliseconds');
  const known: readonly string[] = DURATION_NAMES;
  for (const [key, value] of Object.entries(partial)) {
    if (!known.includes(key)) throw new OcmError(400, `unknown duration '${key}'; known: ${known.join(', ')}`);
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0)
      throw new OcmError(400, `duration '${key}' must be a number of milliseconds >= 0`);
  }
  return partial as Partial<SimulatorDurations>;
}

export function createAdmin(deps: {
  store: SimulatorStore;
  credentials: BreakGlassCredentials;
  externalAuths: ExternalAuths;
  faults: FaultInjector;
  counters: CallCounters;
  durations: SimulatorDurations;
  initialDurations: SimulatorDurations;
  events: () => EventPublisherCounts | undefined;
}): SimulatorAdmin {
  const { store, credentials, externalAuths, faults, counters, durations } = deps;
  return {
    durations: () => ({ ...durations }),
    setDurations(partial) {
      Object.assign(durations, checkDurations(partial));
      return { ...durations };
    },
    addFault: (rule) => faults.add(rule),
    removeFault: (id) => faults.remove(id),
    clearFaults: () => faults.clear(),
    faults: () => faults.list(),
    addProvisionFailure: (rule) => store.addProvisionFailure(rule),
    clearProvisionFailures: () => store.clearProvisionFailures(),
    failCluster: (id, error) => store.failCluster(id, error),
    failNodePool: (clusterId, id, error) => store.failNodePool(clusterId, id, error.message, error.recoverable ?? false),
    failNextCredentialRequests: (clusterId, count = 1) => credentials.failNextRequests(clusterId, count),
    failNextRevocation: (clusterId) => credentials.failNextRevocation(clusterId),
    failExternalAuth: (clusterId, id, error) => externalAuths.fail(clusterId, id, error.message),
    awaitExternalAuthSecret: (clusterId, id) => externalAuths.awaitSecret(clusterId, id),
    clusters: () =>
      store.allClusters().map((c) => ({
        id: c.id,
        name: String(c.body.name ?? ''),
        state: store.clusterPhase(c),
        azure: (c.body.azure ?? {}) as Json,
        nodePools: [...c.nodePools.values()]
          .map((np) => ({ id: np.id, state: store.nodePoolPhase(np) }))
          .filter((np) => np.state !== 'gone'),
      })),
    counters: () => counters.list(),
    count: (endpoint, status) => counters.count(endpoint, status),
    resetCounters: () => counters.reset(),
    events: deps.events,
    reset() {
      store.reset();
      credentials.reset();
      faults.clear();
      counters.reset();
      Object.assign(durations, deps.initialDurations);
    },
  };
}

function objectBody(body: unknown): Json {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new OcmError(400, 'expected a JSON object body');
  return body as Json;
}

/** Serves `/_admin/...` (path given without the prefix). Returns undefined for an unknown route. */
export function handleAdmin(
  admin: SimulatorAdmin,
  method: string,
  path: string,
  body: unknown,
): { status: number; body?: unknown } | undefined {
  const key = `${method} ${path}`;
  switch (key) {
    case 'GET /durations':
      return { status: 200, body: admin.durations() };
    case 'PUT /durations':
      return { status: 200, body: admin.setDurations(checkDurations(body)) };
    case 'GET /faults':
      return { status: 200, body: admin.faults() };
    case 'POST /faults':
      return { status: 201, body: admin.addFault(objectBody(body) as unknown as FaultRule) };
    case 'DELETE /faults':
      admin.clearFaults();
      return { status: 204 };
    case 'POST /provision-failures': {
      const rule = objectBody(body);
      if (typeof rule.code !== 'string' || rule.code === '') throw new OcmError(400, 'a provision failure needs a code, e.g. OCM4001');
      admin.addProvisionFailure(rule as unknown as ProvisionFailureRule);
      return { status: 204 };
    }
    case 'DELETE /provision-failures':
      admin.clearProvisionFailures();
      return { status: 204 };
    case 'GET /clusters':
      return { status: 200, body: admin.clusters() };
    case 'GET /counters':
      return { status: 200, body: admin.counters() };
    case 'DELETE /counters':
      admin.resetCounters();
      return { status: 204 };
    case 'POST /reset':
      admin.reset();
      return { status: 204 };
    case 'GET /events': {
      const events = admin.events();
      return events
        ? { status: 200, body: events }
        : { status: 404, body: { reason: 'no Service Bus given: the simulator publishes no events (--service-bus)' } };
    }
  }
  const fault = /^DELETE \/faults\/([^/]+)$/.exec(key);
  if (fault) return admin.removeFault(fault[1] as string) ? { status: 204 } : { status: 404, body: { reason: 'no such fault' } };
  const clusterError = /^POST \/clusters\/([^/]+)\/error$/.exec(key);
  if (clusterError) {
    const error = objectBody(body);
    if (typeof error.code !== 'string' || error.code === '') throw new OcmError(400, 'a cluster error needs a code, e.g. OCM3001');
    admin.failCluster(clusterError[1] as string, error as unknown as ProvisionError);
    return { status: 204 };
  }
  const nodePoolError = /^POST \/clusters\/([^/]+)\/node_pools\/([^/]+)\/error$/.exec(key);
  if (nodePoolError) {
    const error = objectBody(body);
    admin.failNodePool(nodePoolError[1] as string, nodePoolError[2] as string, {
      message: typeof error.message === 'string' ? error.message : 'Node pool provisioning failed',
      recoverable: error.recoverable === true,
    });
    return { status: 204 };
  }
  const credentialFailures = /^POST \/clusters\/([^/]+)\/break_glass_credentials\/failures$/.exec(key);
  if (credentialFailures) {
    const count = body === undefined ? 1 : objectBody(body).count;
    if (count !== undefined && typeof count !== 'number') throw new OcmError(400, 'count must be a whole number >= 1');
    admin.failNextCredentialRequests(credentialFailures[1] as string, count);
    return { status: 204 };
  }
  const revocationFailure = /^POST \/clusters\/([^/]+)\/break_glass_credentials\/revocation_failure$/.exec(key);
  if (revocationFailure) {
    admin.failNextRevocation(revocationFailure[1] as string);
    return { status: 204 };
  }
  const externalAuthError = /^POST \/clusters\/([^/]+)\/external_auths\/([^/]+)\/error$/.exec(key);
  if (externalAuthError) {
    const error = objectBody(body);
    admin.failExternalAuth(externalAuthError[1] as string, externalAuthError[2] as string, {
      message: typeof error.message === 'string' ? error.message : 'External auth configuration failed',
    });
    return { status: 204 };
  }
  const awaitingSecret = /^POST \/clusters\/([^/]+)\/external_auths\/([^/]+)\/awaiting_secret$/.exec(key);
  if (awaitingSecret) {
    admin.awaitExternalAuthSecret(awaitingSecret[1] as string, awaitingSecret[2] as string);
    return { status: 204 };
  }
  return undefined;
}
