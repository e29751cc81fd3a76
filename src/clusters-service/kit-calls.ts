import type { CsBreakGlassCredential } from '../domain/types.generated';
import type { ClustersServiceClient } from './client';

/**
 * The Clusters Service calls a processor may make (its kit's `cs`), and the shared status reads
 * (`ProcessorTools.cs`): the client's paging, scoping and raw reads stay with the composition root.
 * A new resource kind adds its calls here.
 */
export type KitClustersService = Pick<
  ClustersServiceClient,
  | 'findClusterByAzureIdentity'
  | 'findClustersByArmName'
  | 'createCluster'
  | 'updateCluster'
  | 'deleteCluster'
  | 'getCluster'
  | 'getInflightChecks'
  | 'searchClusters'
  | 'observeClusterStatus'
  | 'createNodePool'
  | 'getNodePool'
  | 'listNodePools'
  | 'observeNodePool'
  | 'updateNodePool'
  | 'deleteNodePool'
  | 'observeNodePoolStatus'
  | 'requestBreakGlassCredential'
  | 'observeBreakGlassCredential'
  | 'listBreakGlassCredentials'
  | 'revokeBreakGlassCredentials'
  | 'createExternalAuth'
  | 'getExternalAuth'
  | 'observeExternalAuth'
  | 'listExternalAuths'
  | 'updateExternalAuth'
  | 'deleteExternalAuth'
>;

/** A break-glass credential as the processors read it: its id, href and state (never its kubeconfig). */
export type KitBreakGlassCredential = Pick<CsBreakGlassCredential, 'id' | 'href' | 'status'>;
