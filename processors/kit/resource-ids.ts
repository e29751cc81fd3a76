import type { NonTerminalStatus, Operation, ProcessorKit, Resource, Stored } from '../../src/kit';

/**
 * The Clusters Service ids a create records on its Resource, written under the subscription lock
 * (the frontend rewrites Resources under it from what it read: an unlocked write could be undone)
 * and only while the Resource is still this operation's.
 */
export type RecordResult =
  /** The Resource after the write (or as it was, when it already held what was asked). */
  | { readonly outcome: 'recorded'; readonly resource: Stored<Resource> }
  /** Another operation (a Delete) took the Resource over: act no more for this one. */
  | { readonly outcome: 'superseded' }
  | { readonly outcome: 'not-found' };

/**
 * Chooses the create's CS id once: `pendingInternalId` is set only when the Resource has neither
 * it nor an `internalId`, so two handlers that both read it empty (a lease moving mid-create) end
 * up with the same id — the second one's CS create is then refused as a duplicate (409) or finds
 * the cluster by search, never a second cluster. Read the id in force from the result.
 */
export function claimPendingInternalId(
  kit: ProcessorKit,
  op: Stored<Operation>,
  resource: Stored<Resource>,
  href: string,
): Promise<RecordResult> {
  return record(kit, op, resource, (current) =>
    current.internalId || ('pendingInternalId' in current && current.pendingInternalId)
      ? undefined
      : { ...current, pendingInternalId: href },
  );
}

/**
 * Records the CS href of the created (or adopted) cluster / node pool on the Resource and, with
 * `provisioningState`, moves a Resource still `Accepted` there in the same write (Clusters Service
 * took the create: the Resource is Provisioning from now on, as its Operation).
 */
export function recordInternalId(
  kit: ProcessorKit,
  op: Stored<Operation>,
  resource: Stored<Resource>,
  href: string,
  provisioningState?: NonTerminalStatus,
): Promise<RecordResult> {
  return record(kit, op, resource, (current) => ({
    ...current,
    internalId: href,
    ...(provisioningState && current.provisioningState === 'Accepted' ? { provisioningState } : {}),
  }));
}

async function record(
  kit: ProcessorKit,
  op: Stored<Operation>,
  resource: Stored<Resource>,
  mutate: (current: Stored<Resource>) => Resource | undefined,
): Promise<RecordResult> {
  return kit.underLock(op.partitionKey, async (signal) => {
    signal.throwIfAborted();
    let superseded = false;
    const r = await kit.resources.update(
      op.partitionKey,
      resource.id,
      (current) => {
        superseded = current.activeOperationId !== op.id;
        return superseded ? undefined : mutate(current);
      },
      { startFrom: resource },
    );
    if (r.outcome === 'not-found') return r;
    if (superseded) return { outcome: 'superseded' };
    return { outcome: 'recorded', resource: r.document };
  });
}
