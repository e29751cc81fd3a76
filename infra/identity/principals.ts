import { randomUUID } from 'node:crypto';

/**
 * The identities the token service can issue tokens for: a managed identity has a client (application)
 * id, an object (principal) id that role assignments name, and an Azure resource id. At most one is
 * the host's system-assigned identity, used when a request names none.
 */
export interface Principal {
  clientId: string;
  objectId: string;
  /** `/subscriptions/…/userAssignedIdentities/<name>`; asked for with `mi_res_id`. */
  resourceId: string;
  systemAssigned: boolean;
}

export type PrincipalInput = Partial<Principal> & { clientId?: string };

/** A principal with every missing field filled in (random ids, a resource id from the client id). */
export function principalOf(input: PrincipalInput = {}): Principal {
  const clientId = input.clientId ?? randomUUID();
  return {
    clientId,
    objectId: input.objectId ?? randomUUID(),
    resourceId:
      input.resourceId ??
      `/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/local/providers/Microsoft.ManagedIdentity/userAssignedIdentities/${clientId}`,
    systemAssigned: input.systemAssigned ?? false,
  };
}

/** How a token request names the identity (App Service protocol 2019-08-01 query parameters). */
export interface IdentitySelector {
  clientId?: string;
  objectId?: string;
  resourceId?: string;
}

export class PrincipalRegistry {
  private readonly byClientId = new Map<string, Principal>();

  constructor(initial: PrincipalInput[] = []) {
    for (const p of initial) this.add(p);
  }

  add(input: PrincipalInput): Principal {
    const principal = principalOf(input);
    if (principal.systemAssigned) for (const p of this.byClientId.values()) p.systemAssigned = false;
    this.byClientId.set(principal.clientId.toLowerCase(), principal);
    return principal;
  }

  remove(clientId: string): boolean {
    return this.byClientId.delete(clientId.toLowerCase());
  }

  list(): Principal[] {
    return [...this.byClientId.values()].map((p) => ({ ...p }));
  }

  /** The principal a request names, or the system-assigned one when it names none; undefined when unknown. */
  find(selector: IdentitySelector): Principal | undefined {
    const all = [...this.byClientId.values()];
    if (selector.clientId) return this.byClientId.get(selector.clientId.toLowerCase());
    if (selector.objectId) return all.find((p) => p.objectId.toLowerCase() === selector.objectId?.toLowerCase());
    if (selector.resourceId) return all.find((p) => p.resourceId.toLowerCase() === selector.resourceId?.toLowerCase());
    return all.find((p) => p.systemAssigned);
  }
}
