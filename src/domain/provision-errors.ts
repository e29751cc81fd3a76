/**
 * How a Clusters Service failure becomes the ARM error of an operation. Pure functions.
 */
import type { ArmError, CsClusterStatus, CsInflightCheck, CsNodePoolStatus } from './types.generated';

/** Provision error code CS reports when inflight checks (egress, DNS, …) failed. */
const INFLIGHT_CHECKS_FAILED_CODE = 'OCM4001';
const INTERNAL_SERVER_ERROR = 'InternalServerError';
const MULTIPLE_ERRORS_OCCURRED = 'MultipleErrorsOccurred';
export const MULTIPLE_ERRORS_MESSAGE = 'Cluster provisioning failed due to multiple errors';

/** True when the status is an error whose details live in `GET /clusters/{id}/inflight_checks`. */
export function needsInflightChecks(status: CsClusterStatus): boolean {
  return status.state === 'error' && status.provision_error_code === INFLIGHT_CHECKS_FAILED_CODE;
}

/** `{code: provision_error_code || InternalServerError, message: provision_error_message || description}`. */
export function clusterProvisionError(status: CsClusterStatus): ArmError {
  return {
    code: status.provision_error_code || INTERNAL_SERVER_ERROR,
    message: status.provision_error_message || status.description || 'Cluster provisioning failed',
  };
}

/**
 * The error for an OCM4001 failure: each failed check becomes `{InternalServerError, details.error}`;
 * one failed check is returned as is, several are wrapped in MultipleErrorsOccurred. With no failed
 * check listed (checks still running, or CS cleared them) the provision error itself is used.
 */
export function inflightChecksError(status: CsClusterStatus, checks: readonly CsInflightCheck[]): ArmError {
  const failed: ArmError[] = checks
    .filter((check) => check.status === 'failed')
    .map((check) => ({ code: INTERNAL_SERVER_ERROR, message: check.details?.error || `inflight check ${check.name} failed` }));
  if (failed.length === 0) return clusterProvisionError(status);
  if (failed.length === 1) return failed[0] as ArmError;
  return { code: MULTIPLE_ERRORS_OCCURRED, message: MULTIPLE_ERRORS_MESSAGE, details: failed };
}

/** `{InternalServerError, status.message}` for a node pool in error. */
export function nodePoolProvisionError(status: CsNodePoolStatus): ArmError {
  return { code: INTERNAL_SERVER_ERROR, message: status.message || 'Node pool provisioning failed' };
}
