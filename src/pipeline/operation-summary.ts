import type { Operation } from '../domain/types';
import { correlationOf } from '../tracing/correlation';
import type { OperationSummary } from './events';

/** What the pipeline's events say of an operation: its ids, request and status, and its correlation. */
export function summary(op: Operation): OperationSummary {
  return {
    operationId: op.id,
    subscriptionId: op.partitionKey,
    resourceId: op.externalId,
    request: op.request,
    status: op.status,
    ...correlationOf(op),
  };
}
