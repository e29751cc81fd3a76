import type { Container } from '@azure/cosmos';
import { HAND_OVER, releaseRequestedAt } from './lease/hand-over';
import { isExpired, isLeaseDocument, toWritable, type LeaseDocument } from './lease/lease-document';
import { leaseId } from './lease/lease-ids';
import { leasePrefixOf } from './lease-report';
import { DEFAULTS } from './options';

/**
 * Operator side of handing a lease over (see `lease/hand-over.ts`): with no running instance of
 * its own, a tool reads one lease, decides, and writes with If-Match, so a lease that changed
 * meanwhile (renewed, checkpointed, taken) is decided on again rather than overwritten.
 */
export interface LeaseAddress {
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
export type HandOverAction =
  | { kind: 'none' }
  | { kind: 'release'; owner: string }
  | { kind: 'request'; owner: string }
  | { kind: 'pending'; owner: string; requestedAt: string };

/** The lease of `leaseToken`, or undefined when this processor has none such. */
export async function readLease(address: LeaseAddress): Promise<LeaseDocument | undefined> {
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

export function handOverAction(
  lease: LeaseDocument,
  nowMs: number,
  leaseExpirationMs: number = DEFAULTS.leaseExpirationMs,
): HandOverAction {
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
export async function writeHandOver(
  leaseContainer: Container,
  lease: LeaseDocument,
  action: HandOverAction,
  nowMs: number,
): Promise<LeaseDocument | 'changed'> {
  const at = new Date(nowMs).toISOString();
  let next: LeaseDocument;
  if (action.kind === 'release') next = { ...lease, Owner: null, timestamp: at };
  else if (action.kind === 'request') next = { ...lease, properties: { ...lease.properties, [HAND_OVER.requestedAt]: at } };
  else return lease;
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
