import { SUPERSEDED } from '../../pipeline/reconcile/superseded';
import type { ExplainReport } from './report';
import { csKindOf, csKindWords } from './cs-kind';

/**
 * The one line `opstream explain` starts with: where the operation is and why, from what was
 * gathered. The first rule that applies wins: a document set aside, an ended operation (and its
 * ARM notification), a range no instance owns, then what the owner says it is doing — only its own
 * answer counts; without it the line says it does not know, and whom to ask. Pure.
 */
export function diagnose(r: ExplainReport, now: number): string {
  const op = r.operation;
  const dead = r.deadLetters[0];
  if (r.invalidOperation) {
    const why = dead ? `dead-lettered (${dead.reason})` : 'invalid, not dead-lettered yet';
    return `${why}: ${r.invalidOperation.field} ${inWords(r.invalidOperation.message)}`;
  }
  if (!op)
    return dead
      ? `dead-lettered (${dead.reason}): ${deadLetterText(dead.error)}; the document is gone from Operations`
      : 'no such operation';
  if (op.status === 'Succeeded' || op.status === 'Failed' || op.status === 'Canceled') return ended(r, now);
  if (dead && (dead.reason === 'processing' || dead.reason === 'unsupported'))
    return `dead-lettered (${dead.reason}): ${deadLetterText(dead.error)}; left ${op.status} in Cosmos DB`;
  const lease = r.lease;
  if (!lease) return 'no lease covers its range: no instance has started on this Operations container (opstream leases lists the leases)';
  const range = rangeName(lease.range);
  if (!lease.owner) return `no instance owns range ${range} (lease released ${span(now - Date.parse(lease.lastWrite))} ago)`;
  if (lease.expired)
    return `no instance owns range ${range} (lease expired ${span(now - Date.parse(lease.expiresAt))} ago; last owner ${lease.owner})`;
  const owner = r.owner;
  const by = lease.owner;
  const lockHolder =
    r.lock?.held && r.lock.owner
      ? `held by ${r.lock.owner}${r.lock.expiresAt ? `, expires in ${span(Date.parse(r.lock.expiresAt) - now)}` : ''}`
      : 'free now';
  const renewed = `lease renewed ${span(now - Date.parse(lease.lastWrite))} ago`;
  // Without the owner's own answer nothing is known of its pipeline: say so, and how to ask it.
  if (owner?.answeredBy)
    return `owned by ${by} (${renewed}); not known what it does: ${owner.answeredBy} answered instead, and its answer is not used; ${owner.ask ?? `ask ${by}`}`;
  if (!owner?.state)
    return `owned by ${by} (${renewed}); not known what it does, as it could not be asked from here (${owner?.error ?? 'no answer'}), which says nothing about its health; ${owner?.ask ?? `ask ${by}`}`;
  const s = owner.state;
  const next = s.dueAt ? `in ${span(Date.parse(s.dueAt) - now)}` : 'now';
  switch (s.state) {
    case 'absent':
      return `${by} owns range ${range} but does not hold the operation: it lists active operations when it takes a range and every pipeline.relistIntervalMs`;
    case 'queued':
      return `queued at ${by} for a worker${s.behindSameResource ? ', behind another operation of the same resource' : ''}`;
    case 'handling':
      if (s.waitingForLockSince)
        return `waiting for the subscription lock (${lockHolder}) for ${span(now - Date.parse(s.waitingForLockSince))}, by ${by}`;
      return `being handled by ${by} for ${span(now - Date.parse(s.handlingSince ?? s.at))}`;
    case 'parked':
      switch (s.reason) {
        case 'clusters-service':
          return `waiting on Clusters Service: ${csText(r, now)}; next check ${next} by ${by}`;
        case 'lock':
          return `waiting for the subscription lock (${lockHolder}): not acquired in time ${s.consecutiveErrors ?? 1} time(s) in a row; next attempt ${next} by ${by}`;
        case 'error':
          return `backing off after an error (${s.consecutiveErrors ?? 1} in a row): ${s.lastHandling?.error ?? 'unknown'}; next attempt ${next} by ${by}`;
        case 'notification':
          return `${s.lastHandling?.note ?? 'ARM notification'}; next attempt ${next} by ${by}`;
        default:
          return `${s.lastHandling?.note ?? 'parked'}; next look ${next} by ${by}`;
      }
  }
}

function ended(r: ExplainReport, now: number): string {
  const op = r.operation as NonNullable<ExplainReport['operation']>;
  const when = `${span(now - Date.parse(op.lastTransitionTime))} ago`;
  const arm = armText(op.notification);
  if (op.status === 'Canceled' && op.error?.message === SUPERSEDED.message) {
    const by = r.activeOperation ? `${r.activeOperation.request} ${short(r.activeOperation.id)}` : 'a later operation (no longer active)';
    return `superseded by ${by} ${when}; ${arm}`;
  }
  const error = op.status === 'Failed' && op.error ? ` (${op.error.code}: ${op.error.message})` : '';
  return `${op.status} ${when}${error}; ${arm}`;
}

type NotificationView = NonNullable<ExplainReport['operation']>['notification'];

/** What became of the ARM notification of an ended operation, from its record on the Operation. */
function armText(n: NotificationView): string {
  const d = n.delivery;
  const http = d?.httpStatus !== undefined ? `HTTP ${d.httpStatus}` : 'no answer';
  const attempts = d ? `${d.attempts} attempt${d.attempts === 1 ? '' : 's'}` : '';
  switch (n.state) {
    case 'sent':
      return d ? `ARM told at ${d.at} after ${attempts} (${http})` : 'ARM told';
    case 'pending': {
      const claim = n.claim ? ` (claimed by ${n.claim.owner.split('#')[0]} until ${n.claim.until})` : '';
      if (d?.state === 'failing') return `ARM delivery failing: ${d.answer ?? http}, attempt ${d.attempts} at ${d.at}${claim}`;
      return `ARM notification pending${claim}`;
    }
    case 'given-up':
      return `ARM notification given up (${n.givenUp?.reason}): ${n.givenUp?.detail}${d ? ` (after ${attempts})` : ''}`;
    case 'none':
      // ARM asked for none, or an opstream that did not record deliveries yet told it.
      return 'no notification URI';
    case 'later':
      return 'ARM to be told once it ends';
  }
}

function csText(r: ExplainReport, now: number): string {
  const seen = r.owner?.state?.clustersService;
  const kind = csKindWords(r.clustersService?.kind ?? csKindOf(seen?.href ?? ''));
  const state = seen?.state ?? r.clustersService?.state;
  if (!state) return `${kind} not read yet${seen?.href ? ` (${seen.href})` : ''}`;
  const since = seen?.stateSince ?? r.operation?.lastTransitionTime;
  return `${kind} ${state}${since ? ` for ${span(now - Date.parse(since))}` : ''}`;
}

function deadLetterText(e: { message: string; path?: string }): string {
  return inWords(e.message);
}

/** Schema formats said in words ("is not an ARM resource id" rather than `must match format "arm-resource-id"`). */
const FORMAT_WORDS: Record<string, string> = {
  'arm-resource-id': 'is not an ARM resource id',
  'date-time': 'is not an RFC 3339 time',
  uri: 'is not a URI',
};

function inWords(message: string): string {
  return message.replace(/must match format "([^"]+)"/g, (whole, format: string) => FORMAT_WORDS[format] ?? whole);
}

function rangeName(range: { min: string; max: string }): string {
  return `${range.min || '""'}-${range.max}`;
}

function short(id: string): string {
  return id.length > 12 ? `${id.slice(0, 8)}…` : id;
}

/** A duration as people say it: 4 s, 7 m 12 s, 2 h 5 m. */
export function span(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return s % 60 ? `${m} m ${s % 60} s` : `${m} m`;
  const h = Math.floor(m / 60);
  return m % 60 ? `${h} h ${m % 60} m` : `${h} h`;
}
