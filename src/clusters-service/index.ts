/** The Clusters Service client: typed calls, typed errors, search expressions. */
export * from './client';
export * from './errors';
export type { KitBreakGlassCredential, KitClustersService } from './kit-calls';
export {
  CLUSTERS_SERVICE_DEFAULTS,
  ClustersServiceOptionsError,
  type ClustersServiceCallEvent,
  type ClustersServiceClientOptions,
} from './options';
export * from './search-expression';
export { SMALL_BODY_BYTES } from './transport';
export { parseRetryAfter } from '../util/retry-after';
