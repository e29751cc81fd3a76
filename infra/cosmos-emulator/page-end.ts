import { ContainerState } from './container';
import { H } from './scope';
import { EmulatorRequest } from './types';

/**
 * A partition serving a query stops when a page is full without looking further, so a full page
 * carries a continuation even when nothing follows, and the next page is empty and final (the SDK's
 * specs count that page). The emulator's engine knows when it is done; this adds the service's
 * continuation where the service's gateway would stream a single partition's answer itself: a
 * container with one physical range or a query scoped to one partition key, an explicit page size,
 * and a streamed query (aggregates, GROUP BY and DISTINCT are assembled whole).
 */
export const END_OF_PARTITION = '+RID:#RT:0#END';

const ASSEMBLED = /\b(COUNT|SUM|AVG|MIN|MAX)\s*\(|\bGROUP\s+BY\b|\bDISTINCT\b/i;

export function isEndOfPartition(continuation: string | undefined): boolean {
  return continuation === END_OF_PARTITION;
}

export function fullPageContinues(container: ContainerState, req: EmulatorRequest, query: string | undefined, returned: number): boolean {
  const asked = Number(req.headers[H.maxItemCount]);
  if (!Number.isInteger(asked) || asked <= 0 || returned !== asked) return false;
  if (query !== undefined && ASSEMBLED.test(query)) return false;
  if (req.headers[H.rangeId] !== undefined) return false;
  return container.liveRanges().length === 1 || req.headers[H.partitionKey] !== undefined;
}
