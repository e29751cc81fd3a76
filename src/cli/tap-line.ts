import type { TapEvent } from '../ops/taps';
import { statusColour, type Paint } from './terminal';

/**
 * One tap event as one readable line:
 *
 *   14:03:07.412 transitions   Accepted → Provisioning  Create  hcpOpenShiftClusters/c1  op 3f2a…  processor=cluster-create
 *
 * Time (local), stream, status (with the previous one for transitions), request, the resource id
 * shortened to what follows the provider namespace, the operation id, then every other field as
 * key=value. Unknown shapes still print: nothing is dropped.
 */
const SHOWN = new Set(['status', 'previousStatus', 'request', 'resourceId', 'operationId', 'subscriptionId']);

export function formatTapLine(event: TapEvent, paint: Paint): string {
  const d = (event.data && typeof event.data === 'object' ? event.data : { value: event.data }) as Record<string, unknown>;
  const parts: string[] = [paint('gray', timeOf(event.at)), paint('cyan', event.stream.padEnd(13))];
  const status = str(d.status);
  if (status) {
    const previous = str(d.previousStatus);
    const text = previous ? `${previous} → ${status}` : status;
    parts.push(paint(statusColour(status), text.padEnd(previous ? 26 : 12)));
  }
  if (status || str(d.request)) parts.push((str(d.request) ?? '').padEnd(6)); // a column while events carry a status
  const resource = str(d.resourceId);
  if (resource) parts.push(paint('bold', shortResource(resource)));
  else if (str(d.subscriptionId)) parts.push(`sub ${String(d.subscriptionId)}`);
  if (str(d.operationId)) parts.push(paint('gray', `op ${String(d.operationId)}`));
  for (const [key, value] of Object.entries(d)) {
    if (SHOWN.has(key) || value === undefined) continue;
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    parts.push(key === 'error' || key === 'reason' ? paint('red', `${key}=${text}`) : `${key}=${text}`);
  }
  return parts.join('  ');
}

/** `/subscriptions/…/providers/Microsoft.RedHatOpenShift/hcpOpenShiftClusters/c1/nodePools/np` → `hcpOpenShiftClusters/c1/nodePools/np`. */
export function shortResource(armId: string): string {
  const m = /\/providers\/[^/]+\/(.+)$/i.exec(armId);
  return m ? m[1] : armId;
}

function timeOf(at: string): string {
  const t = new Date(at);
  if (Number.isNaN(t.getTime())) return at;
  const p = (n: number, w = 2): string => String(n).padStart(w, '0');
  return `${p(t.getHours())}:${p(t.getMinutes())}:${p(t.getSeconds())}.${p(t.getMilliseconds(), 3)}`;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}
