/** The Resources container: clusters and node pools, and the operation write-back rule. */
import type { Container } from '@azure/cosmos';
import { parseArmResourceId, resourceDocumentId } from '../domain/ids';
import { isTerminal } from '../domain/statuses';
import type { OperationStatus, Resource, Stored } from '../domain/types';
import {
  DocumentRepository,
  type DocumentRepositoryOptions,
  type Mutation,
  type UpdateOptions,
  type UpdateResult,
} from './document-repository';

export interface WriteBack {
  readonly provisioningState: OperationStatus;
  /** Set the CS href at the same time (e.g. when a create was adopted). */
  readonly internalId?: string;
  /** Kept with a Succeeded terminal state; every other terminal write removes the record. */
  readonly clustersServiceState?: object;
}

export type WriteBackResult =
  | UpdateResult<Resource>
  /** The resource's `activeOperationId` is another operation (or none): nothing was written. */
  | { readonly outcome: 'not-active'; readonly document: Stored<Resource> };

export class ResourcesRepository {
  readonly documents: DocumentRepository<'resource'>;

  constructor(container: Container, options: DocumentRepositoryOptions<'resource'> = {}) {
    this.documents = new DocumentRepository(container, 'resource', options);
  }

  read(partitionKey: string, id: string): Promise<Stored<Resource> | undefined> {
    return this.documents.read(partitionKey, id);
  }

  /** Point-reads the document of an ARM resource id (any casing). Throws InvalidIdError for a bad id. */
  readByResourceId(resourceId: string): Promise<Stored<Resource> | undefined> {
    return this.read(parseArmResourceId(resourceId).partitionKey, resourceDocumentId(resourceId));
  }

  /**
   * The Resource an operation acts on: the point read of the documented id (the ARM id lower-cased,
   * `/` → `|`), else the document whose `resourceId` is that ARM id (any casing) — a frontend that
   * names its documents otherwise is still understood, at the cost of a query.
   */
  async findFor(partitionKey: string, resourceId: string): Promise<Stored<Resource> | undefined> {
    const byId = await this.read(partitionKey, resourceDocumentId(resourceId));
    if (byId) return byId;
    const { items } = await this.documents.query(
      {
        query: 'SELECT * FROM c WHERE LOWER(c.resourceId) = @resourceId',
        parameters: [{ name: '@resourceId', value: resourceId.toLowerCase() }],
      },
      { partitionKey },
    );
    return items[0];
  }

  create(resource: Resource): Promise<Stored<Resource>> {
    return this.documents.create(resource, resource.partitionKey);
  }

  upsert(resource: Resource): Promise<Stored<Resource>> {
    return this.documents.upsert(resource, resource.partitionKey);
  }

  update(partitionKey: string, id: string, mutate: Mutation<Resource>, options?: UpdateOptions): Promise<UpdateResult<Resource>> {
    return this.documents.update(partitionKey, id, mutate, options);
  }

  /**
   * The write-back rule: only when `activeOperationId` is `operationId`, set `provisioningState`
   * (and `internalId` when given); when terminal, clear `activeOperationId`. Writes only changes.
   */
  async writeBack(
    partitionKey: string,
    id: string,
    operationId: string,
    change: WriteBack,
    options?: UpdateOptions,
  ): Promise<WriteBackResult> {
    let notActive: Stored<Resource> | undefined;
    const result = await this.update(
      partitionKey,
      id,
      (current) => {
        notActive = undefined;
        if (current.activeOperationId !== operationId) {
          notActive = current;
          return undefined;
        }
        const next: Resource = { ...current, provisioningState: change.provisioningState };
        if (change.internalId !== undefined) next.internalId = change.internalId;
        // The terminal state is this operation's: the crash repair ends only the operation named here.
        if (isTerminal(change.provisioningState)) {
          Object.assign(next, { activeOperationId: '', lastOperationId: operationId });
          // A record stands only for the state a success left: after a failure CS may hold anything.
          if (change.provisioningState === 'Succeeded' && change.clustersServiceState)
            next.clustersServiceState = { ...change.clustersServiceState };
          else delete next.clustersServiceState;
        }
        return next;
      },
      options,
    );
    return notActive ? { outcome: 'not-active', document: notActive } : result;
  }

  /** Persists the CS href chosen before calling CS create (so a crash in between can be repaired). */
  setPendingInternalId(
    partitionKey: string,
    id: string,
    pendingInternalId: string,
    options?: UpdateOptions,
  ): Promise<UpdateResult<Resource>> {
    return this.update(partitionKey, id, (current) => ({ ...current, pendingInternalId }), options);
  }

  /** Records the CS href of the created (or adopted) cluster / node pool. */
  setInternalId(partitionKey: string, id: string, internalId: string, options?: UpdateOptions): Promise<UpdateResult<Resource>> {
    return this.update(partitionKey, id, (current) => ({ ...current, internalId }), options);
  }

  /** Every Resource whose ARM id lies under `parentResourceId` (a cluster's node pools, external auths…), in its partition. */
  async listChildrenOf(partitionKey: string, parentResourceId: string): Promise<Stored<Resource>[]> {
    const { items } = await this.documents.query(
      {
        query: 'SELECT * FROM c WHERE STARTSWITH(LOWER(c.resourceId), @prefix)',
        parameters: [{ name: '@prefix', value: `${parentResourceId.toLowerCase()}/` }],
      },
      { partitionKey },
    );
    return items;
  }

  /** Deletes the document (the resource is gone from CS). False when it was already gone. */
  delete(partitionKey: string, id: string, etag?: string): Promise<boolean> {
    return this.documents.delete(partitionKey, id, etag);
  }
}
