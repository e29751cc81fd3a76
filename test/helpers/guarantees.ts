import type { LeaseDocument } from '@opstream/changefeed';
import { rangeOf } from '../../src/changefeed/lease/lease-document';
import { randomUUID } from 'crypto';
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'http';
import type { AddressInfo } from 'net';
import type { Subscription } from 'rxjs';
import type { ClusterSnapshot } from '@opstream/clusters-service-simulator/admin';
import type { ActiveFault } from '@opstream/clusters-service-simulator/faults';
import { clusterArmId, operationStatusId, resourceDocumentId } from '@opstream/frontend-simulator';
import { ClustersServiceClient, azureFields } from '../../src/clusters-service';
import type { Harness } from './opstream-harness';
import { waitFor } from './wait-for';

/**
 * Helpers of the guarantees-*.test.ts end-to-end suites: everything is read from outside opstream
 * (the Clusters Service simulator's admin view, Cosmos documents, the ARM receiver, the public
 * `transitions` stream), and faults go through the stand-ins' admin calls.
 */

const TERMINAL = new Set(['Succeeded', 'Failed', 'Canceled']);

/** The live CS clusters (any state, uninstalling included) that ARM knows by this name. */
export function clustersNamed(h: Harness, sub: string, rg: string, name: string): ClusterSnapshot[] {
  return h.cs.admin.clusters().filter((c) => {
    const azure = c.azure as { subscription_id?: unknown; resource_group_name?: unknown; resource_name?: unknown };
    return (
      azure.subscription_id === sub.toLowerCase() &&
      azure.resource_group_name === rg.toLowerCase() &&
      azure.resource_name === name.toLowerCase()
    );
  });
}

/** Creates a cluster straight in Clusters Service, as if a create had gone out that opstream never recorded. */
export async function createClusterInCs(
  h: Harness,
  c: { sub: string; rg: string; name: string; tenantId: string; managedResourceGroupName: string; id?: string },
): Promise<string> {
  const cs = new ClustersServiceClient({ baseUrl: h.cs.url });
  const created = await cs.createCluster({
    ...(c.id ? { id: c.id } : {}),
    name: c.name.toLowerCase(),
    region: { id: 'eastus' },
    version: { id: '4.18' },
    azure: azureFields({
      subscriptionId: c.sub,
      resourceGroupName: c.rg,
      resourceName: c.name,
      tenantId: c.tenantId,
      managedResourceGroupName: c.managedResourceGroupName,
    }),
  });
  return created.id;
}

/** An Operation and its cluster Resource as a frontend writes them, for raw writes into Cosmos. */
export function clusterDocuments(
  h: Harness,
  d: { sub: string; rg: string; name: string; request: 'Create' | 'Delete'; resourceDocId?: string; armId?: string },
): { opId: string; armId: string; operation: Record<string, unknown>; resource: Record<string, unknown> } {
  const armId = d.armId ?? clusterArmId(d.sub, d.rg, d.name);
  const opId = randomUUID();
  const now = new Date().toISOString();
  const status = d.request === 'Delete' ? 'Deleting' : 'Accepted';
  return {
    opId,
    armId,
    operation: {
      id: opId,
      partitionKey: d.sub,
      request: d.request,
      externalId: armId,
      internalId: '',
      status,
      startTime: now,
      lastTransitionTime: now,
      operationId: operationStatusId(d.sub, 'eastus', opId),
      notificationUri: `${h.receiver.url}/notify/${opId}`,
      tenantId: randomUUID(),
      clientId: randomUUID(),
    },
    resource: {
      id: d.resourceDocId ?? resourceDocumentId(armId),
      partitionKey: d.sub,
      resourceId: armId,
      resourceType: 'Microsoft.RedHatOpenShift/hcpOpenShiftClusters',
      internalId: '',
      activeOperationId: opId,
      provisioningState: status,
      properties: { version: '4.18', region: 'eastus', managedResourceGroupName: `mrg-${d.name}` },
    },
  };
}

/** Reads a document as stored, or undefined. */
export async function readDocument(h: Harness, container: string, id: string, pk: string): Promise<Record<string, unknown> | undefined> {
  const { resource } = await h.database.container(container).item(id, pk).read<Record<string, unknown>>();
  return resource ?? undefined;
}

/** A document as a client writes it back: without Cosmos' system fields (`_rid`, `_etag`, …). */
export function withoutSystemFields(doc: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(doc).filter(([k]) => !k.startsWith('_')));
}

export interface TransitionEvent {
  operationId?: string;
  resourceId?: string;
  request?: string;
  status?: string;
}

export interface TerminalSeen<T> {
  operationId: string;
  status: string;
  /** Taken synchronously when the terminal transition was published, i.e. right after the Operation write. */
  snapshot: T;
}

/**
 * Resolves when an instance publishes a terminal transition matching `which` on its `transitions`
 * stream (the one `opstream tap transitions` follows), with `snapshot()` taken in that same tick.
 * Subscribe before writing the operation.
 */
export function atTerminal<T>(
  h: Harness,
  which: (e: TransitionEvent) => boolean,
  snapshot: () => T,
  timeoutMs = 60_000,
): Promise<TerminalSeen<T>> {
  const subs: Subscription[] = [];
  return new Promise<TerminalSeen<T>>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no matching terminal transition within ${timeoutMs} ms`)), timeoutMs);
    for (const app of h.instances) {
      subs.push(
        app.taps.tap<TransitionEvent>('transitions').subscribe((e) => {
          if (!TERMINAL.has(String(e.data.status)) || !which(e.data)) return;
          const seen = { operationId: String(e.data.operationId), status: String(e.data.status), snapshot: snapshot() };
          clearTimeout(timer);
          resolve(seen);
        }),
      );
    }
  }).finally(() => subs.forEach((s) => s.unsubscribe()));
}

/** The CS latency fault rule with this id, as the simulator reports it (undefined once removed). */
export function faultById(h: Harness, id: string): ActiveFault | undefined {
  return h.cs.admin.faults().find((f) => f.id === id);
}

/**
 * Removes a `POST /clusters` latency rule and waits until every create it delayed has been
 * answered (so a create that went out late has landed, or been refused, before anything is counted).
 */
export async function drainDelayedCreates(h: Harness, faultId: string, postsBefore: number, timeoutMs = 30_000): Promise<void> {
  const applied = faultById(h, faultId)?.applied ?? 0;
  h.cs.admin.removeFault(faultId);
  await waitFor(() => h.cs.admin.count('POST /clusters') - postsBefore >= applied, {
    timeoutMs,
    describe: () => `the ${applied} delayed POST /clusters to be answered (answered: ${h.cs.admin.count('POST /clusters') - postsBefore})`,
  });
}

/** Calls counted by an instance's ops server `/metrics` (opstream_cs_calls_total) for an endpoint and status. */
export async function csCallsCounted(opsUrl: string, endpoint: string, status: string): Promise<number> {
  const text = await (await fetch(new URL('/metrics', opsUrl))).text();
  const line = text
    .split('\n')
    .find((l) => l.startsWith('opstream_cs_calls_total{') && l.includes(`endpoint="${endpoint}"`) && l.includes(`status="${status}"`));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
}

/** Lease documents of the harness' processor: token and owner. */
export async function leaseOwners(h: Harness): Promise<Array<{ token: string; owner: string | null }>> {
  const { resources } = await h.database
    .container('Leases')
    .items.query<{ LeaseToken: string; Owner?: string | null }>('SELECT * FROM c WHERE IS_DEFINED(c.LeaseToken)')
    .fetchAll();
  return resources.map((l) => ({ token: l.LeaseToken, owner: l.Owner ?? null }));
}

/** The feed ranges of these lease tokens, as their lease documents hold them. */
export async function leaseRanges(h: Harness, tokens: readonly string[]): Promise<Array<{ min: string; max: string }>> {
  const { resources } = await h.database
    .container('Leases')
    .items.query<LeaseDocument>('SELECT * FROM c WHERE IS_DEFINED(c.LeaseToken)')
    .fetchAll();
  return resources.filter((l) => tokens.includes(l.LeaseToken)).map((l) => rangeOf(l));
}

export interface NotificationGate {
  /**
   * Base URL to give a frontend as its notification base; `tag` (a path segment) is handed to
   * `before` with each of its notifications: `${url}/${tag}/notify/<op>` reaches the receiver as `/notify/<op>`.
   */
  urlFor(tag: string): string;
  close(): Promise<void>;
}

/**
 * An ARM notification endpoint in front of the receiver: on each POST it first runs `before`
 * (awaited), then forwards the request and relays the receiver's answer. Whatever `before` does
 * is therefore in place before opstream learns that the notification was delivered.
 */
export async function startNotificationGate(
  targetUrl: string,
  before: (tag: string, operationId: string) => void | Promise<void>,
): Promise<NotificationGate> {
  const target = new URL(targetUrl);
  const server: Server = createServer((req, res) => {
    void (async () => {
      const body = await readAll(req);
      const [, tag = '', rest = ''] = /^\/([^/]+)(\/notify\/.*)$/.exec(req.url ?? '') ?? [];
      await before(decodeURIComponent(tag), decodeURIComponent(/^\/notify\/([^/?]+)/.exec(rest)?.[1] ?? ''));
      const forward = httpRequest(
        {
          host: target.hostname,
          port: target.port,
          method: req.method,
          path: rest,
          headers: { 'content-type': req.headers['content-type'] ?? 'application/json' },
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      forward.on('error', () => res.writeHead(502).end());
      forward.end(body);
    })().catch(() => res.writeHead(500).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    urlFor: (tag) => `http://127.0.0.1:${port}/${encodeURIComponent(tag)}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function readAll(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', () => resolve(Buffer.concat(chunks)));
  });
}
