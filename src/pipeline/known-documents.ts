import { resourceDocumentId } from '../domain/ids';
import type { Operation, Resource, Stored } from '../domain/types';

/**
 * The latest version this instance has of each Operation and Resource document it works on: what
 * it read by id, what it wrote, and the Operations the change feed or a relist brought. A handling
 * starts from them instead of reading both documents again, which halves its reads.
 *
 * Why a copy may be trusted: while this instance holds an operation's lease, only its own handlings
 * write the Operation, and the frontend writes the Resource only with a new Operation, which the
 * change feed brings here (`brought` then drops the Resource). A copy gone stale anyway (a lease
 * overlap, an Operation written by another instance) costs no lost update: every write carries
 * If-Match on the copy's etag, and a 412 reads afresh (DocumentRepository.update); and a write-back
 * it shows to change nothing is skipped (write-back's `changesNothing` says why that is safe). A
 * version whose place in time is unknown (a relist page, a change-feed page read behind this
 * instance's own writes) never replaces another: the two are dropped, and the next handling reads.
 *
 * Bounded: the least recently used go first; forgetting one only costs a read.
 */
export class KnownDocuments {
  private readonly operations = new BoundedMap<Stored<Operation>>();
  private readonly resources = new BoundedMap<Stored<Resource>>();

  constructor(private readonly capacity = 10_000) {}

  operation(id: string): Stored<Operation> | undefined {
    return this.operations.get(id);
  }

  /** The Resource of an ARM resource id, by its document id. */
  resourceOf(armResourceId: string): Stored<Resource> | undefined {
    return this.resources.get(resourceDocumentId(armResourceId));
  }

  /** A version read by id or written here (`undefined`: the document is gone): the latest there is. */
  sawOperation(id: string, doc: Stored<Operation> | undefined): void {
    this.operations.set(id, doc, this.capacity);
  }

  sawResource(id: string, doc: Stored<Resource> | undefined): void {
    this.resources.set(id, doc, this.capacity);
  }

  /**
   * An Operation the change feed or a relist brought, not written by this instance. Kept only when
   * nothing was known of it and this instance never wrote it (`writtenHere`: a page read behind our
   * own writes would bring an older version); otherwise what was known is dropped too, unless it is
   * the same version. Its Resource may have changed with it (the frontend writes both): dropped.
   */
  brought(op: Stored<Operation>, writtenHere: boolean): void {
    const known = this.operations.get(op.id);
    if (!known && !writtenHere) this.operations.set(op.id, op, this.capacity);
    else if (known && known._etag !== op._etag) this.operations.set(op.id, undefined, this.capacity);
    this.resources.set(resourceDocumentId(op.externalId), undefined, this.capacity);
  }

  /** Forgets an operation (it ended, or its lease is gone), and with `armResourceId` its Resource. */
  forget(operationId: string, armResourceId?: string): void {
    this.operations.set(operationId, undefined, this.capacity);
    if (armResourceId !== undefined) this.resources.set(resourceDocumentId(armResourceId), undefined, this.capacity);
  }
}

/** A Map that keeps at most `capacity` entries, dropping the least recently set or read. */
class BoundedMap<V> {
  private readonly entries = new Map<string, V>();

  get(key: string): V | undefined {
    const value = this.entries.get(key);
    if (value === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  /** `undefined` deletes. */
  set(key: string, value: V | undefined, capacity: number): void {
    this.entries.delete(key);
    if (value === undefined) return;
    this.entries.set(key, value);
    if (this.entries.size > capacity) this.entries.delete(this.entries.keys().next().value as string);
  }
}
