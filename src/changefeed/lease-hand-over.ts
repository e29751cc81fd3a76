import type { Container } from '@azure/cosmos';
import { resolveStartEtag } from './bootstrap/start-position';
import { HAND_OVER, releaseRequestedAt, withoutRequest } from './lease/hand-over';
import { isExpired, isLeaseDocument, rangeOf, toWritable, type LeaseDocument } from './lease/lease-document';
import { leaseId } from './lease/lease-ids';
import { leasePrefixOf } from './lease-report';
import { DEFAULTS } from './options';

/**
 * Operator side of handing a lease over (see `lease/hand-over.ts`): with no running instance of
 * its own, a tool reads one lease, decides, and writes with If-Match, so a lease that changed
 * meanwhile (renewed, checkpointed, taken) is decided on again rather than overwritten.
 */
interface LeaseAddress {
  feedContainer: Container;
  leaseContainer: Container;
  processorName: string;
  /** `{min}-{max}`, as the lease report lists it. */
  leaseToken: string;
}

/**
 * What a hand-over does to the lease as it stands:
 * - `none`: nobody owns it; any instance takes it at its next balancing cycle.
 * - `release`: its owner's lease expired (the owner is gone or cut off): Owner is set to null at once.
 * - `request`: a live owner is asked; it releases at its next renewal, after its last checkpoint.
 * - `pending`: asked already, not yet released.
 */
type HandOverAction =
  | { kind: 'none' }
  | { kind: 'release'; owner: string }
  | { kind: 'request'; owner: string }
  | { kind: 'pending'; owner: string; requestedAt: string };

/** The lease of `leaseToken`, or undefined when this processor has none such. */
async function readLease(address: LeaseAddress): Promise<LeaseDocument | undefined> {
  const { prefix } = await leasePrefixOf(address.feedContainer, address.processorName);
  const { resources } = await address.leaseContainer.items
    .query<unknown>({
      query: 'SELECT * FROM c WHERE c.id = @id',
      parameters: [{ name: '@id', value: leaseId(prefix, address.leaseToken) }],
    })
    .fetchAll();
  const found = resources[0];
  return isLeaseDocument(found) ? found : undefined;
}

function handOverAction(lease: LeaseDocument, nowMs: number, leaseExpirationMs: number = DEFAULTS.leaseExpirationMs): HandOverAction {
  if (!lease.Owner) return { kind: 'none' };
  if (isExpired(lease, nowMs, leaseExpirationMs)) return { kind: 'release', owner: lease.Owner };
  const requestedAt = releaseRequestedAt(lease);
  if (requestedAt !== undefined) return { kind: 'pending', owner: lease.Owner, requestedAt };
  return { kind: 'request', owner: lease.Owner };
}

/**
 * Writes `action` (`release` or `request`) over exactly `lease` (If-Match on its etag). Resolves
 * the written document, or `changed` when the lease was written meanwhile: read it and decide again.
 */
async function writeHandOver(
  leaseContainer: Container,
  lease: LeaseDocument,
  action: HandOverAction,
  nowMs: number,
): Promise<LeaseDocument | 'changed'> {
  const at = new Date(nowMs).toISOString();
  if (action.kind === 'release') return replaceIfMatch(leaseContainer, lease, { ...lease, Owner: null, timestamp: at });
  if (action.kind === 'request')
    return replaceIfMatch(leaseContainer, lease, { ...lease, properties: { ...lease.properties, [HAND_OVER.requestedAt]: at } });
  return lease;
}

/**
 * Moving a lease's position (what `kafka-consumer-groups --reset-offsets` does to a group):
 * - `write`: nobody reads the range (unowned, or its owner's lease expired): the continuation is
 *   written at once (Owner null), the next owner starts there;
 * - `request`: a live owner is asked (`properties.continuationResetTo`); at its next lease write it
 *   stops reading, drops what it had not checkpointed, and releases the lease with that continuation
 *   in the same write, so neither it nor the next owner reads on from the old position.
 */
type ResetAction = { kind: 'write'; owner: string | null } | { kind: 'request'; owner: string };

function resetAction(lease: LeaseDocument, nowMs: number, leaseExpirationMs: number = DEFAULTS.leaseExpirationMs): ResetAction {
  if (!lease.Owner || isExpired(lease, nowMs, leaseExpirationMs)) return { kind: 'write', owner: lease.Owner ?? null };
  return { kind: 'request', owner: lease.Owner };
}

/** Where to move a lease: its range's first change, the current end, or the first change after a time. */
type ResetTarget = 'beginning' | 'now' | { time: Date };

/** The continuation (raw etag; null = the beginning) of `target` in the lease's range, resolved as new leases resolve theirs. */
async function continuationAt(feedContainer: Container, lease: LeaseDocument, target: ResetTarget): Promise<string | null> {
  if (target === 'beginning') return null;
  const { min, max } = rangeOf(lease);
  const range = (await feedContainer.getFeedRanges()).find((r) => r.minInclusive === min && r.maxExclusive === max);
  if (!range) throw new Error(`lease ${lease.LeaseToken} is not one of the container's feed ranges now (it was split): reset its children`);
  return resolveStartEtag(feedContainer, range, target);
}

/** Writes `action` with `continuation` over exactly `lease` (If-Match); `changed` when it was written meanwhile. */
async function writeReset(
  leaseContainer: Container,
  lease: LeaseDocument,
  action: ResetAction,
  continuation: string | null,
  nowMs: number,
): Promise<LeaseDocument | 'changed'> {
  if (action.kind === 'write') {
    const properties = withoutRequest(lease.properties);
    return replaceIfMatch(leaseContainer, lease, {
      ...lease,
      Owner: null,
      ContinuationToken: continuation,
      properties,
      timestamp: new Date(nowMs).toISOString(),
    });
  }
  return replaceIfMatch(leaseContainer, lease, {
    ...lease,
    properties: { ...lease.properties, [HAND_OVER.resetTo]: JSON.stringify(continuation) },
  });
}

async function replaceIfMatch(leaseContainer: Container, lease: LeaseDocument, next: LeaseDocument): Promise<LeaseDocument | 'changed'> {
  try {
    const { resource } = await leaseContainer
      .item(lease.id, lease.partitionKey ?? lease.id)
      .replace<LeaseDocument>(toWritable(next) as LeaseDocument & { id: string }, {
        accessCondition: { type: 'IfMatch', condition: lease._etag ?? '' },
      });
    return resource as LeaseDocument;
  } catch (err) {
    const status = (err as { code?: unknown; statusCode?: unknown }).code ?? (err as { statusCode?: unknown }).statusCode;
    if (status === 412 || status === 404) return 'changed';
    throw err;
  }
}

/**
 * Operator tools on one lease, through the lease document alone: hand a range over to another
 * instance (`handOverAction` then `writeHandOver`), or move its position (`resetAction`,
 * `continuationAt`, then `writeReset`); `readLease` reads the lease at an address. A live owner is
 * asked through the document and acts at its next lease write; see README "Handing a lease over".
 */
export const leaseHandOver = Object.freeze({ readLease, handOverAction, writeHandOver, resetAction, continuationAt, writeReset });
