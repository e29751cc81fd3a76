import type { Attributes } from '@opentelemetry/api';
import type { CorrelationIds } from './correlation';

/**
 * Span attribute names. HTTP and database attributes follow the OpenTelemetry semantic
 * conventions; what is opstream's own is under `opstream.`.
 */
export const ATTR = Object.freeze({
  operationId: 'opstream.operation.id',
  request: 'opstream.operation.request',
  status: 'opstream.operation.status',
  subscriptionId: 'opstream.subscription.id',
  resourceId: 'opstream.resource.id',
  resourceType: 'opstream.resource.type',
  leaseToken: 'opstream.lease.token',
  correlationRequestId: 'opstream.correlation_request_id',
  clientRequestId: 'opstream.client_request_id',
  processor: 'opstream.processor',
  outcome: 'opstream.outcome',
  note: 'opstream.outcome.note',
  lockWaitMs: 'opstream.lock.wait_ms',
  documents: 'opstream.batch.documents',
  reason: 'opstream.reason',
  httpMethod: 'http.request.method',
  httpStatus: 'http.response.status_code',
  resendCount: 'http.request.resend_count',
  url: 'url.full',
  serverAddress: 'server.address',
  serverPort: 'server.port',
  errorType: 'error.type',
  dbSystem: 'db.system.name',
  dbOperation: 'db.operation.name',
  dbCollection: 'db.collection.name',
  dbStatus: 'db.response.status_code',
  cosmosRequestCharge: 'azure.cosmosdb.operation.request_charge',
});

/** What identifies an operation on a span: ids, the lease whose range holds it, the frontend's correlation ids. */
export interface OperationSpanFields extends CorrelationIds {
  operationId: string;
  subscriptionId: string;
  resourceId: string;
  request?: string;
  status?: string;
  leaseToken?: string;
}

export function operationAttributes(o: OperationSpanFields): Attributes {
  const a: Attributes = { [ATTR.operationId]: o.operationId, [ATTR.subscriptionId]: o.subscriptionId, [ATTR.resourceId]: o.resourceId };
  if (o.request) a[ATTR.request] = o.request;
  if (o.status) a[ATTR.status] = o.status;
  if (o.leaseToken) a[ATTR.leaseToken] = o.leaseToken;
  if (o.correlationRequestId) a[ATTR.correlationRequestId] = o.correlationRequestId;
  if (o.clientRequestId) a[ATTR.clientRequestId] = o.clientRequestId;
  return a;
}
