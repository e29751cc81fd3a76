/**
 * Remembers the `_etag` of the documents this instance wrote, so their echo on the change feed is
 * not handled a second time (each echo would cost a Clusters Service call). Bounded: the oldest
 * entries go first; forgetting one only costs a redundant, harmless reconcile.
 */
export class OwnWrites {
  private readonly etags = new Map<string, string>();

  constructor(private readonly capacity = 100_000) {}

  record(doc: { id: string; _etag?: string }): void {
    if (!doc._etag) return;
    this.etags.delete(doc.id);
    this.etags.set(doc.id, doc._etag);
    if (this.etags.size > this.capacity) this.etags.delete(this.etags.keys().next().value as string);
  }

  /** Whether this instance wrote the document (any version it still remembers). */
  wrote(id: string): boolean {
    return this.etags.has(id);
  }

  isOwn(doc: { id?: unknown; _etag?: unknown }): boolean {
    return typeof doc.id === 'string' && typeof doc._etag === 'string' && this.etags.get(doc.id) === doc._etag;
  }
}
