/** The Subscriptions container: subscription state and the tenant the CS search needs. */
import type { Container } from '@azure/cosmos';
import type { Stored, Subscription } from '../domain/types';
import { DocumentRepository } from './document-repository';
import { MissingTenantError } from './errors';

export class SubscriptionsRepository {
  readonly documents: DocumentRepository<'subscription'>;

  constructor(container: Container) {
    this.documents = new DocumentRepository(container, 'subscription');
  }

  /** The subscription (any casing of its id), or undefined. */
  read(subscriptionId: string): Promise<Stored<Subscription> | undefined> {
    const id = subscriptionId.toLowerCase();
    return this.documents.read(id, id);
  }

  upsert(subscription: Subscription): Promise<Stored<Subscription>> {
    return this.documents.upsert(subscription, subscription.id);
  }

  /** `properties.tenantId`; a missing document or tenant is a MissingTenantError. */
  async tenantIdOf(subscriptionId: string): Promise<string> {
    const subscription = await this.read(subscriptionId);
    if (!subscription) throw new MissingTenantError(subscriptionId, 'no-subscription');
    const tenantId = subscription.properties?.tenantId;
    if (!tenantId) throw new MissingTenantError(subscriptionId, 'no-tenant');
    return tenantId;
  }
}
