/** OCM-shaped error bodies, and the error type handlers throw to answer with one. */

export const API_PREFIX = '/api/aro_hcp/v1alpha1';
/** Break-glass credentials are served here, not under API_PREFIX (as in Clusters Service). */
export const CLUSTERS_MGMT_PREFIX = '/api/clusters_mgmt/v1';

export interface OcmErrorBody {
  kind: 'Error';
  id: string;
  href: string;
  code: string;
  reason: string;
  operation_id: string;
}

/** Thrown by handlers; the server turns it into `status` with an OCM error body. */
export class OcmError extends Error {
  constructor(
    readonly status: number,
    readonly reason: string,
  ) {
    super(reason);
    this.name = 'OcmError';
  }
}

export function ocmErrorBody(status: number, reason: string, operationId: string): OcmErrorBody {
  return {
    kind: 'Error',
    id: String(status),
    href: `${API_PREFIX}/errors/${status}`,
    code: `CLUSTERS-MGMT-${status}`,
    reason,
    operation_id: operationId,
  };
}
