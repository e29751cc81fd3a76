import type { CsObservation } from '../domain/cs-mapping';
import type { ClustersServiceClient } from './client';

/**
 * The Clusters Service calls a processor may make (its kit's `cs`), and the shared status reads
 * (`ProcessorTools.cs`): the client's paging, scoping and raw reads stay with the composition root.
 * A new resource kind adds its calls here.
 */
export type KitClustersService = BreakGlassCalls &
  Pick<
    ClustersServiceClient,
    | 'findClusterByAzureIdentity'
    | 'findClustersByArmName'
    | 'createCluster'
    | 'updateCluster'
    | 'deleteCluster'
    | 'getInflightChecks'
    | 'searchClusters'
    | 'observeClusterStatus'
    | 'createNodePool'
    | 'getNodePool'
    | 'updateNodePool'
    | 'deleteNodePool'
    | 'observeNodePoolStatus'
  >;

/** A break-glass credential as the processors read it: its id, href and state (never its kubeconfig). */
export interface KitBreakGlassCredential {
  readonly id: string;
  readonly href: string;
  readonly status: string;
}

/** The break-glass credential calls (clusters_mgmt): request one, read one, list and revoke a cluster's. */
interface BreakGlassCalls {
  requestBreakGlassCredential(clusterId: string, body: { id?: string }): Promise<KitBreakGlassCredential>;
  observeBreakGlassCredential(clusterId: string, credentialId: string): Promise<CsObservation<KitBreakGlassCredential>>;
  listBreakGlassCredentials(clusterId: string): Promise<readonly KitBreakGlassCredential[]>;
  revokeBreakGlassCredentials(clusterId: string): Promise<void>;
}
