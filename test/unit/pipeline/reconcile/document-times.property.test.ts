import fc from 'fast-check';
import { ArmNotifier, type NotificationAttempt } from '../../../../src/arm/arm-notifier';
import { OPERATION_LIFETIME_MS } from '../../../../src/domain/document-time';
import { isTerminal } from '../../../../src/domain/statuses';
import type { Operation, OperationRequest, Resource } from '../../../../src/domain/types';
import type { Outcome } from '../../../../src/pipeline/queue/outcome';
import { NotificationDelivery } from '../../../../src/pipeline/reconcile/notification-delivery';
import { isValid } from '../../../../src/schemas/validator';
import { silentLogger } from '../../../../src/logging/logger';
import {
  CS_PREFIX,
  ProcessorWorld,
  T0,
  clusterArmId,
  clusterResource,
  csCluster,
  operation,
  subscription,
} from '../../../helpers/processor-kit';

/**
 * Whatever times a schema-valid Operation and Resource hold — leap seconds, years 0001 and 9999, any
 * offset, times in the future — every decision yields a finite delay, and every operation Clusters
 * Service never finishes ends (Failed at its deadline) within the operation's lifetime on opstream's
 * own clock; an ARM notification's retries and claims stay finite too.
 */
const CLUSTER = clusterArmId();
const CS1 = `${CS_PREFIX}/clusters/cs1`;

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/** An RFC 3339 time of any year 0001–9999, UTC or with an offset, sometimes a leap second. */
const documentTime: fc.Arbitrary<string> = fc.oneof(
  fc
    .date({ min: new Date('0001-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true })
    .map((d) => d.toISOString()),
  fc
    .record({
      year: fc.integer({ min: 1, max: 9999 }),
      month: fc.integer({ min: 1, max: 12 }),
      day: fc.integer({ min: 1, max: 28 }),
      hour: fc.integer({ min: 0, max: 23 }),
      offsetMinutes: fc.integer({ min: -14 * 60, max: 14 * 60 }),
      fraction: fc.option(fc.integer({ min: 0, max: 999_999_999 }), { nil: undefined }),
    })
    .map(({ year, month, day, hour, offsetMinutes, fraction }) => {
      const sign = offsetMinutes < 0 ? '-' : '+';
      const abs = Math.abs(offsetMinutes);
      return `${pad(year, 4)}-${pad(month)}-${pad(day)}T${pad(hour)}:17:42${fraction === undefined ? '' : `.${fraction}`}${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
    }),
  fc.integer({ min: 1972, max: 9999 }).map((year) => `${year}-12-31T23:59:60Z`),
  fc.constantFrom(
    '9999-12-31T23:59:59Z',
    '0001-01-01T00:00:00Z',
    new Date(T0 - 60_000).toISOString(),
    new Date(T0 + 86_400_000).toISOString(),
  ),
);

interface Case {
  request: Extract<OperationRequest, 'Create' | 'Update' | 'Delete'>;
  startTime: string;
  lastTransitionTime: string;
  createDeadline?: string;
  deleteDeadline?: string;
}

const cases: fc.Arbitrary<Case> = fc.record(
  {
    request: fc.constantFrom('Create' as const, 'Update' as const, 'Delete' as const),
    startTime: documentTime,
    lastTransitionTime: documentTime,
    createDeadline: documentTime,
    deleteDeadline: documentTime,
  },
  { requiredKeys: ['request', 'startTime', 'lastTransitionTime'] },
);

function documents(c: Case): { op: Operation; resource: Resource } {
  const status = c.request === 'Create' ? 'Provisioning' : c.request === 'Update' ? 'Updating' : 'Deleting';
  const op = operation({
    request: c.request,
    externalId: CLUSTER,
    status,
    internalId: CS1,
    startTime: c.startTime,
    lastTransitionTime: c.lastTransitionTime,
  });
  const resource = clusterResource({
    internalId: CS1,
    provisioningState: status,
    ...(c.createDeadline ? { createOperationCompletionDeadline: c.createDeadline } : {}),
    ...(c.deleteDeadline ? { deleteOperationCompletionDeadline: c.deleteDeadline } : {}),
  });
  return { op, resource };
}

function expectFiniteDelay(outcome: Outcome): void {
  if (outcome.kind !== 'again') return;
  expect(Number.isFinite(outcome.afterMs)).toBe(true);
  expect(outcome.afterMs).toBeGreaterThanOrEqual(0);
  expect(outcome.afterMs).toBeLessThanOrEqual(OPERATION_LIFETIME_MS);
}

describe('document times cannot spin, stall or outlive a deadline', () => {
  it('generated documents are schema-valid (the property below is about what the service would store)', () => {
    fc.assert(
      fc.property(cases, (c) => {
        const { op, resource } = documents(c);
        expect(isValid('operation', op)).toBe(true);
        expect(isValid('resource', resource)).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  it('every decision is a finite delay, and an operation CS never finishes ends within its lifetime', async () => {
    await fc.assert(
      fc.asyncProperty(cases, async (c) => {
        const w = new ProcessorWorld();
        const { op, resource } = documents(c);
        w.seed(subscription(), resource, op);
        // Clusters Service never finishes: installing, updating, or deleting for ever.
        w.cs.addCluster(csCluster('cs1', c.request === 'Create' ? 'installing' : c.request === 'Update' ? 'updating' : 'ready'));
        const reconcile = w.reconciler();
        for (let look = 0; look < 40 && !isTerminal(w.operation()?.status ?? 'Succeeded'); look++) {
          const outcome = await reconcile();
          expectFiniteDelay(outcome);
          w.clock.advance(outcome.kind === 'again' ? Math.max(outcome.afterMs, 1) : 1);
        }
        // Past the lifetime of an operation written by now, whatever its times say: the next looks end it.
        if (!isTerminal(w.operation()?.status ?? 'Succeeded')) {
          // (The start counts no later than the Operation's last write, which was before now.)
          w.clock.set(w.clock.now() + OPERATION_LIFETIME_MS + 2000);
          for (let look = 0; look < 3 && !isTerminal(w.operation()?.status ?? 'Succeeded'); look++) expectFiniteDelay(await reconcile());
        }
        expect(w.operation()?.status).toBe('Failed');
      }),
      { numRuns: 150 },
    );
  });

  it('an ARM notification’s retries, deadline and claims are finite whatever its times say', async () => {
    class Retrying extends ArmNotifier {
      override refusalOf(): undefined {
        return undefined;
      }
      override deliver(): Promise<NotificationAttempt> {
        return Promise.resolve({ kind: 'retry', reason: 'server-error', status: 503, detail: '503' });
      }
    }
    await fc.assert(
      fc.asyncProperty(documentTime, fc.option(documentTime, { nil: undefined }), async (ended, claimUntil) => {
        const w = new ProcessorWorld();
        const op = operation({
          request: 'Create',
          externalId: CLUSTER,
          status: 'Succeeded',
          lastTransitionTime: ended,
          notificationUri: 'https://management.azure.com/notify/op-1',
          ...(claimUntil ? { notificationClaim: { owner: 'another-instance', until: claimUntil } } : {}),
        });
        w.seed(subscription(), op);
        // The claim's renewal timer is left unfired: the test steps time itself, one delivery at a time.
        const clock = { now: () => w.clock.now(), setTimeout: () => 0, clearTimeout: () => undefined };
        const services = { ...w.pipelineContext(), clock, notifier: new Retrying() };
        const delivery = new NotificationDelivery(4, () => undefined);
        for (let attempt = 0; attempt < 20 && w.operation()?.notificationUri; attempt++) {
          const stored = w.operation();
          if (!stored) break;
          const outcome = await delivery.handle(services, { logger: silentLogger(), cs: services.cs }, stored);
          expectFiniteDelay(outcome);
          if (outcome.kind !== 'again') break;
          // Never held off for longer than a claim can last, nor retried past the deadline.
          expect(outcome.afterMs).toBeLessThanOrEqual(
            Math.max(2 * services.settings.notificationClaimMs, services.settings.notificationDeadlineMs),
          );
          w.clock.advance(Math.max(outcome.afterMs, 1));
        }
        // Within the notification deadline of the end as this clock allows it: given up or still retrying, never stuck.
        w.clock.set(w.clock.now() + services.settings.notificationDeadlineMs + 2 * services.settings.notificationClaimMs + 2000);
        const last = w.operation();
        if (last?.notificationUri) await delivery.handle(services, { logger: silentLogger(), cs: services.cs }, last);
        expect(w.operation()?.notificationUri).toBeUndefined();
      }),
      { numRuns: 150 },
    );
  });
});
