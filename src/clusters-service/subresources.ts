/**
 * Where a cluster's break-glass credentials and external auths live in Clusters Service, and the one
 * refusal of theirs that means success. Break-glass credentials are served under clusters_mgmt/v1,
 * not aro_hcp/v1alpha1: ARO-HCP rewrites the cluster's path before calling them.
 */
import { ClustersServiceClientError } from './errors';

export const CLUSTERS_MGMT_PREFIX = '/api/clusters_mgmt/v1';

/** Endpoint templates (`METHOD <template>` names a call in metrics, as in the simulator's counters). */
export const BREAK_GLASS_TEMPLATES = Object.freeze({
  collection: '/clusters/{id}/break_glass_credentials',
  one: '/clusters/{id}/break_glass_credentials/{credential}',
});

export const EXTERNAL_AUTH_TEMPLATES = Object.freeze({
  collection: '/clusters/{id}/external_auth_config/external_auths',
  one: '/clusters/{id}/external_auth_config/external_auths/{externalAuth}',
});

const enc = encodeURIComponent;

/** The credentials collection of a cluster, or one credential (after CLUSTERS_MGMT_PREFIX). */
export function breakGlassPath(clusterId: string, credentialId?: string): string {
  const collection = `/clusters/${enc(clusterId)}/break_glass_credentials`;
  return credentialId === undefined ? collection : `${collection}/${enc(credentialId)}`;
}

/** The external auths collection of a cluster, or one external auth (after the aro_hcp prefix). */
export function externalAuthPath(clusterId: string, externalAuthId?: string): string {
  const collection = `/clusters/${enc(clusterId)}/external_auth_config/external_auths`;
  return externalAuthId === undefined ? collection : `${collection}/${enc(externalAuthId)}`;
}

/**
 * Clusters Service answers a revocation asked for while one is pending with a 400 whose reason says
 * so: what was asked is already under way.
 */
export function isRevocationAlreadyRequested(err: unknown): boolean {
  return err instanceof ClustersServiceClientError && err.status === 400 && /revocation has already been requested/i.test(err.reason ?? '');
}
