/**
 * Lease ids in the .NET Change Feed Processor's format, so fleets of both can share a lease
 * container and tools built for one read the other:
 *
 *   prefix   = {processorName}{accountHost}_{databaseRid}_{containerRid}
 *   lease    = {prefix}..{leaseToken}          leaseToken (version 1) = "{min}-{max}"
 *   markers  = {prefix}.info, {prefix}.lock
 *
 * Ids are deterministic, so creating a lease for a range that already has one is a 409, never a
 * duplicate.
 */

export interface LeaseScope {
  processorName: string;
  /** Host of the monitored account's endpoint, e.g. `myaccount.documents.azure.com` or `127.0.0.1`. */
  accountHost: string;
  databaseRid: string;
  containerRid: string;
}

export function leasePrefix(scope: LeaseScope): string {
  return `${scope.processorName}${scope.accountHost}_${scope.databaseRid}_${scope.containerRid}`;
}

/** Version-1 (EPK range) lease token. */
export function leaseTokenOf(range: { min: string; max: string }): string {
  return `${range.min}-${range.max}`;
}

export function leaseId(prefix: string, leaseToken: string): string {
  return `${prefix}..${leaseToken}`;
}

export const infoMarkerId = (prefix: string): string => `${prefix}.info`;
export const lockMarkerId = (prefix: string): string => `${prefix}.lock`;

/** True for lease documents of this prefix (not its `.info` / `.lock` markers). */
export function isLeaseIdOf(prefix: string, id: string): boolean {
  return id.startsWith(`${prefix}..`);
}

/** The host part of an account endpoint URL, as .NET uses it in the prefix (no scheme, no port). */
export function accountHostOf(endpoint: string): string {
  return new URL(endpoint).hostname;
}
