import { TapEvent } from './taps';

/**
 * The filters of `opstream tap` and `/streams/<name>`. Tap events describe operations with the
 * fields below (any may be absent); a filter on a field an event lacks excludes the event.
 */
export interface TapFilter {
  status?: string;
  subscription?: string;
  resource?: string;
}

interface OperationTapFields {
  operationId?: string;
  subscriptionId?: string;
  resourceId?: string;
  status?: string;
}

export function tapPredicate(filter: TapFilter): ((e: TapEvent) => boolean) | undefined {
  const status = filter.status?.toLowerCase();
  const sub = filter.subscription?.toLowerCase();
  const res = filter.resource?.toLowerCase();
  if (!status && !sub && !res) return undefined;
  return (e) => {
    const d = (e.data ?? {}) as OperationTapFields;
    if (status && d.status?.toLowerCase() !== status) return false;
    if (sub && d.subscriptionId?.toLowerCase() !== sub) return false;
    if (res && !d.resourceId?.toLowerCase().startsWith(res)) return false;
    return true;
  };
}
