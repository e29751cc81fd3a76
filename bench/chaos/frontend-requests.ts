/**
 * One ARM request through the frontend simulator, as ARM would retry it through Cosmos faults.
 * The frontend writes Resource, then Operation, under the subscription lock; a 503 or a dropped
 * connection can fail it before, between or after those writes. After a failure the Operation is
 * looked for in Cosmos (the write may have happened and only the answer was lost: it is adopted);
 * otherwise the request is sent again. A request the frontend then refuses (409: a Resource left
 * pointing at an Operation that was never written) is given up and reported.
 */
import type { Container } from '@azure/cosmos';
import {
  clusterArmId,
  externalAuthArmId,
  FrontendConflictError,
  nodePoolArmId,
  type FrontendSimulator,
  type Request,
  type WrittenOperation,
} from '@opstream/frontend-simulator';
import { errorText, retrying, sleep } from './util';

export type Step =
  | 'createCluster'
  | 'createNodePool'
  | 'createExternalAuth'
  | 'updateNodePool'
  | 'updateExternalAuth'
  | 'updateCluster'
  | 'requestCredential'
  | 'revokeCredentials'
  | 'deleteExternalAuth'
  | 'deleteNodePool'
  | 'deleteCluster';

/** A cluster's life as the frontend writes it: every kind opstream handles, created, changed and deleted. */
export const LIFECYCLE: readonly Step[] = [
  'createCluster',
  'createNodePool',
  'createExternalAuth',
  'updateNodePool',
  'updateExternalAuth',
  'updateCluster',
  'requestCredential',
  'revokeCredentials',
  'deleteExternalAuth',
  'deleteNodePool',
  'deleteCluster',
];

export interface Target {
  readonly sub: string;
  readonly rg: string;
  readonly cluster: string;
}

const NODE_POOL = 'np1';
const EXTERNAL_AUTH = 'entra';

function armIdOf(step: Step, t: Target): string {
  if (step.includes('NodePool')) return nodePoolArmId(t.sub, t.rg, t.cluster, NODE_POOL);
  if (step.includes('ExternalAuth')) return externalAuthArmId(t.sub, t.rg, t.cluster, EXTERNAL_AUTH);
  return clusterArmId(t.sub, t.rg, t.cluster);
}

function requestOf(step: Step): Request {
  if (step === 'requestCredential') return 'RequestCredential';
  if (step === 'revokeCredentials') return 'RevokeCredentials';
  return step.startsWith('create') ? 'Create' : step.startsWith('update') ? 'Update' : 'Delete';
}

function send(fe: FrontendSimulator, step: Step, t: Target): Promise<WrittenOperation> {
  switch (step) {
    case 'createCluster':
      return fe.createCluster(t.sub, t.rg, t.cluster);
    case 'createNodePool':
      return fe.createNodePool(t.sub, t.rg, t.cluster, NODE_POOL, { replicas: 2 });
    case 'createExternalAuth':
      return fe.createExternalAuth(t.sub, t.rg, t.cluster, EXTERNAL_AUTH);
    case 'updateExternalAuth':
      return fe.updateExternalAuth(t.sub, t.rg, t.cluster, EXTERNAL_AUTH, {
        issuer: { url: `https://login.example.com/${t.cluster}/v2.0`, audiences: ['opstream-chaos'] },
      });
    case 'deleteExternalAuth':
      return fe.deleteExternalAuth(t.sub, t.rg, t.cluster, EXTERNAL_AUTH);
    case 'updateNodePool':
      return fe.updateNodePool(t.sub, t.rg, t.cluster, NODE_POOL, { replicas: 3 });
    case 'updateCluster':
      return fe.updateCluster(t.sub, t.rg, t.cluster, { version: '4.19' });
    case 'requestCredential':
      return fe.requestCredential(t.sub, t.rg, t.cluster);
    case 'revokeCredentials':
      return fe.revokeCredentials(t.sub, t.rg, t.cluster);
    case 'deleteNodePool':
      return fe.deleteNodePool(t.sub, t.rg, t.cluster, NODE_POOL);
    case 'deleteCluster':
      return fe.deleteCluster(t.sub, t.rg, t.cluster);
  }
}

export type RequestOutcome =
  | { readonly kind: 'written'; readonly op: WrittenOperation; readonly attempts: number; readonly adopted: boolean }
  | { readonly kind: 'refused'; readonly reason: string; readonly attempts: number };

/** The Operation of this request written at or after `since`, if any. */
async function findWritten(operations: Container, step: Step, t: Target, since: number): Promise<WrittenOperation | undefined> {
  const externalId = armIdOf(step, t);
  const request = requestOf(step);
  const { resources } = await retrying(() =>
    operations.items
      .query<{ id: string; startTime: string; correlationRequestId: string; clientRequestId: string }>(
        {
          query:
            'SELECT c.id, c.startTime, c.correlationRequestId, c.clientRequestId FROM c WHERE c.externalId = @x AND c.request = @r AND c.startTime >= @since',
          parameters: [
            { name: '@x', value: externalId },
            { name: '@r', value: request },
            { name: '@since', value: new Date(since).toISOString() },
          ],
        },
        { partitionKey: t.sub.toLowerCase() },
      )
      .fetchAll(),
  );
  const found = resources.sort((a, b) => a.startTime.localeCompare(b.startTime))[0];
  if (!found) return undefined;
  return {
    operationId: found.id,
    partitionKey: t.sub.toLowerCase(),
    externalId,
    resourceDocId: '',
    request,
    writtenAt: Date.parse(found.startTime),
    correlationRequestId: found.correlationRequestId,
    clientRequestId: found.clientRequestId,
  };
}

export async function sendRequest(
  fe: FrontendSimulator,
  operations: Container,
  step: Step,
  t: Target,
  maxAttempts = 8,
): Promise<RequestOutcome> {
  let lastError = '';
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    const since = Date.now() - 5;
    try {
      return { kind: 'written', op: await send(fe, step, t), attempts: attempt, adopted: false };
    } catch (err) {
      lastError = errorText(err);
      const found = await findWritten(operations, step, t, since).catch(() => undefined);
      if (found) return { kind: 'written', op: found, attempts: attempt, adopted: true };
      if (err instanceof FrontendConflictError) return { kind: 'refused', reason: `409 ${lastError}`, attempts: attempt };
      await sleep(Math.min(2_000, 100 * 2 ** attempt));
    }
  }
  return { kind: 'refused', reason: `gave up after ${maxAttempts} attempts: ${lastError}`, attempts: maxAttempts };
}
