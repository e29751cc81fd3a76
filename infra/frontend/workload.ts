import { FrontendSimulator, WrittenOperation } from './frontend-simulator';
import { seededGuid, seededRandom } from './seeded-random';

/**
 * A scripted ARM workload: per subscription, cluster lifecycles (create cluster → create node pool →
 * update node pool → update cluster → delete node pool → delete cluster), each step issued when the
 * previous one is terminal, as an ARM client would. Deterministic for a seed.
 */
export type Step =
  | 'createCluster'
  | 'createNodePool'
  | 'updateNodePool'
  | 'updateCluster'
  | 'requestCredential'
  | 'revokeCredentials'
  | 'createExternalAuth'
  | 'updateExternalAuth'
  | 'deleteExternalAuth'
  | 'deleteNodePool'
  | 'deleteCluster';

export const FULL_LIFECYCLE: readonly Step[] = [
  'createCluster',
  'createNodePool',
  'updateNodePool',
  'updateCluster',
  'deleteNodePool',
  'deleteCluster',
];

/**
 * The demo's lifecycle: the full one with a break-glass credential requested then every credential
 * revoked, and an external auth created, updated (a rotated issuer) and deleted.
 */
export const DEMO_LIFECYCLE: readonly Step[] = [
  'createCluster',
  'createNodePool',
  'updateNodePool',
  'updateCluster',
  'requestCredential',
  'revokeCredentials',
  'createExternalAuth',
  'updateExternalAuth',
  'deleteExternalAuth',
  'deleteNodePool',
  'deleteCluster',
];

export interface WorkloadOptions {
  frontend: FrontendSimulator;
  /** Resolves with the terminal status of an operation (notification receiver, or a poll). */
  waitForTerminal: (op: WrittenOperation) => Promise<string>;
  subscriptions: number;
  clustersPerSubscription: number;
  steps?: readonly Step[];
  seed?: number;
  /** Lifecycles running at once. @defaultValue all */
  concurrency?: number;
  tenantId?: string;
  onOperation?: (op: WrittenOperation, step: Step) => void;
  onTerminal?: (op: WrittenOperation, step: Step, status: string) => void;
  signal?: AbortSignal;
}

export interface WorkloadResult {
  operations: number;
  byStatus: Record<string, number>;
  /** Operations whose status was not the expected Succeeded, with their step. */
  unexpected: Array<{ op: WrittenOperation; step: Step; status: string }>;
  subscriptionIds: string[];
}

export async function runWorkload(options: WorkloadOptions): Promise<WorkloadResult> {
  const random = seededRandom(options.seed ?? 42);
  const subscriptionIds = Array.from({ length: options.subscriptions }, () => seededGuid(random));
  for (const sub of subscriptionIds) await options.frontend.registerSubscription(sub, options.tenantId ?? seededGuid(random));
  const runId = Math.floor(random() * 1e6).toString(36);
  const lifecycles = subscriptionIds.flatMap((sub) =>
    Array.from({ length: options.clustersPerSubscription }, (_, i) => ({ sub, rg: `rg-${runId}`, cluster: `c${i}-${runId}` })),
  );
  const result: WorkloadResult = { operations: 0, byStatus: {}, unexpected: [], subscriptionIds };
  const steps = options.steps ?? FULL_LIFECYCLE;
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < lifecycles.length && !options.signal?.aborted) {
      const lc = lifecycles[next++];
      for (const step of steps) {
        if (options.signal?.aborted) return;
        const op = await issue(options.frontend, step, lc.sub, lc.rg, lc.cluster);
        result.operations++;
        options.onOperation?.(op, step);
        const status = await options.waitForTerminal(op);
        result.byStatus[status] = (result.byStatus[status] ?? 0) + 1;
        options.onTerminal?.(op, step, status);
        if (status !== 'Succeeded') {
          result.unexpected.push({ op, step, status });
          break;
        }
      }
    }
  };
  const concurrency = Math.max(1, Math.min(options.concurrency ?? lifecycles.length, lifecycles.length));
  await Promise.all(Array.from({ length: concurrency }, worker));
  return result;
}

/** Writes the operation of one lifecycle step, as the frontend does for its ARM request. */
export function issue(fe: FrontendSimulator, step: Step, sub: string, rg: string, cluster: string): Promise<WrittenOperation> {
  switch (step) {
    case 'createCluster':
      return fe.createCluster(sub, rg, cluster);
    case 'createNodePool':
      return fe.createNodePool(sub, rg, cluster, 'np1', { replicas: 2 });
    case 'updateNodePool':
      return fe.updateNodePool(sub, rg, cluster, 'np1', {
        replicas: 3,
        ...(sometimes(cluster) && {
          labels: { tier: 'batch' },
          taints: [{ key: 'dedicated', value: 'batch', effect: 'NoSchedule' }],
          nodeDrainTimeoutMinutes: 20,
        }),
      });
    case 'updateCluster':
      return fe.updateCluster(sub, rg, cluster, {
        version: '4.19',
        ...(sometimes(cluster) && { nodeDrainTimeoutMinutes: 45, authorizedCidrs: ['10.0.0.0/8'], autoscaling: { maxNodesTotal: 30 } }),
      });
    case 'requestCredential':
      return fe.requestCredential(sub, rg, cluster);
    case 'revokeCredentials':
      return fe.revokeCredentials(sub, rg, cluster);
    case 'createExternalAuth':
      return fe.createExternalAuth(sub, rg, cluster, 'entra');
    case 'updateExternalAuth':
      return fe.updateExternalAuth(sub, rg, cluster, 'entra', {
        issuer: { url: `https://login.example.com/${cluster}/v2.0`, audiences: [`${cluster}-console`, `${cluster}-cli`] },
      });
    case 'deleteExternalAuth':
      return fe.deleteExternalAuth(sub, rg, cluster, 'entra');
    case 'deleteNodePool':
      return fe.deleteNodePool(sub, rg, cluster, 'np1');
    case 'deleteCluster':
      return fe.deleteCluster(sub, rg, cluster);
  }
}

/** Every other cluster (by name, so a seeded run repeats it): its Updates change more than size and version, as ARM users do. */
function sometimes(cluster: string): boolean {
  return [...cluster].reduce((sum, c) => sum + c.charCodeAt(0), 0) % 2 === 1;
}
