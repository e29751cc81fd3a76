/** The Clusters Service simulator (see README.md). */
export {
  checkBindHost,
  startClustersServiceSimulator,
  type ApiCallRecord,
  type ClustersServiceSimulator,
  type ClustersServiceSimulatorOptions,
} from './server';
export type { ClusterSnapshot, SimulatorAdmin } from './admin';
export type { CallCount } from './counters';
export type { ActiveFault, FaultKind, FaultRule } from './faults';
export { DEFAULT_DURATIONS, type Durations, type Phase, type SimulatorDurations, type SubresourceDurations } from './lifecycle';
export type { CredentialStatus } from './break-glass';
export type { ExternalAuthState } from './external-auths';
export type { DurationTarget, DurationsFor, InflightCheckSpec, ProvisionError, ProvisionFailureRule } from './store';
