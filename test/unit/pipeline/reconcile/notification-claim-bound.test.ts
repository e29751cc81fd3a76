import type { Operation } from '../../../../src/domain/types';
import { NotificationFailedError } from '../../../../src/pipeline/reconcile/arm-notifier';
import { OperationReconciler } from '../../../../src/pipeline/reconcile/operation-reconciler';
import { classifyFailure } from '../../../../src/pipeline/queue/failure';
import { PARTITION_KEY, ProcessorWorld, SETTINGS, STARTED, clusterArmId, clusterResource, operation, subscription } from '../../../helpers/processor-kit';

const CLAIM_MS = 400;

/**
 * A delivery must not outlive the claim it is made under: once the claim lapses another instance
 * may deliver too. A slow ARM endpoint makes the delivery stop while a quarter of the claim is left
 * (time to clear notificationUri), and the handling is retried under a new claim.
 */
describe('an ARM notification is bounded by its claim', () => {
  it('a delivery still waiting when the claim nears its end is stopped, left to a retry, and the URI kept', async () => {
    const w = new ProcessorWorld();
    const cluster = clusterArmId();
    w.seed(
      subscription(),
      clusterResource({ provisioningState: 'Succeeded', activeOperationId: '' }),
      operation({ request: 'Create', externalId: cluster, status: 'Succeeded', notificationUri: 'http://127.0.0.1:9/notify' }),
    );
    let abortedAfterMs: number | undefined;
    const slowArm = {
      deliver: (_op: Operation, signal?: AbortSignal) =>
        new Promise<void>((_resolve, reject) => {
          const started = Date.now();
          signal?.addEventListener('abort', () => {
            abortedAfterMs = Date.now() - started;
            reject(signal.reason);
          });
        }),
    };
    const ctx = { ...w.pipelineContext(), notifier: slowArm as unknown as ReturnType<ProcessorWorld['pipelineContext']>['notifier'], settings: { ...SETTINGS, notificationClaimMs: CLAIM_MS } };
    const reconciler = new OperationReconciler(ctx, w.processors);
    const ref = { partitionKey: PARTITION_KEY, id: 'op-1', startTime: STARTED, resourceId: cluster, leaseToken: '0', request: 'Create' as const, status: 'Succeeded' as const };

    const err = await reconciler.reconcile(ref).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(NotificationFailedError);
    expect(classifyFailure(err)).toBe('retriable');
    expect(abortedAfterMs).toBeDefined();
    expect(abortedAfterMs!).toBeLessThan(CLAIM_MS);
    const doc = w.operation() as Operation & { notificationClaim?: { owner: string } };
    expect(doc.notificationUri).toBe('http://127.0.0.1:9/notify');
    expect(doc.notificationClaim?.owner).toBe(ctx.instanceId);
  });
});
