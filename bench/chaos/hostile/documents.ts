/**
 * The hostile documents of the hostile-documents scenario: cluster creates the frontend accepts as
 * valid-looking ARM requests, each with one field chosen to hurt — where opstream connects
 * (`notificationUri`) or what it copies into headers, events and logs (the correlation ids). Each
 * kind says what opstream must make of it, checked from outside (the notification endpoints' counts,
 * the ARM receiver, the Operations and DeadLetters containers):
 * - `refused`: the notification is never sent anywhere, and the operation still ends;
 * - `final`: one POST, whose answer ends the notification (a 3xx is never followed, a 4xx not retried);
 * - `given-up`: retried with backoff until the notification deadline, then given up (these endpoints,
 *   which never answer or always fail, are one origin, the others another: one origin that never
 *   answers must not hold back notifications to another);
 * - `delivered`: delivered (a body that never ends is not read to its end; a 429 is retried after Retry-After);
 * - `dead-letter`: the document is dead-lettered with the field named, and nothing is sent.
 */
import type { FrontendSimulator, RequestOptions, WrittenOperation } from '@opstream/frontend-simulator';
import type { Target } from '../frontend-requests';

export type Expectation = 'refused' | 'final' | 'given-up' | 'delivered' | 'dead-letter';

interface HostileKind {
  readonly name: string;
  readonly expect: Expectation;
  /** Share of the hostile documents of this kind (weights; the hanging endpoint is the most). */
  readonly weight: number;
  /** The field a dead letter must name. */
  readonly field?: string;
  /** What the Operation must record as the reason its notification was given up (none: delivered). */
  readonly givenUp?: readonly string[];
  /** `endpoints` is the slow endpoints' base URL or the others', as `slow` says. */
  readonly slow?: boolean;
  readonly request: (
    endpoints: string,
    arm: string,
  ) => Pick<RequestOptions, 'notificationUri' | 'correlationRequestId' | 'clientRequestId' | 'documentTimes'>;
}

/** Valid RFC 3339 times JavaScript cannot take at face value: a leap second, the last second of year 9999. */
const LEAP_SECOND = '2026-12-31T23:59:60Z';
const YEAR_9999 = '9999-12-31T23:59:59Z';

const HOSTILE_KINDS: readonly HostileKind[] = [
  {
    name: 'uri-file-scheme',
    expect: 'refused',
    weight: 1,
    givenUp: ['scheme'],
    request: () => ({ notificationUri: () => 'file:///etc/passwd' }),
  },
  {
    name: 'uri-ftp-scheme',
    expect: 'refused',
    weight: 1,
    givenUp: ['scheme'],
    request: (e) => ({ notificationUri: (op) => `${e.replace(/^http:/, 'ftp:')}/status/204/${op}` }),
  },
  // .invalid never resolves (RFC 2606), and the allow-list refuses it before any look-up.
  {
    name: 'uri-host-not-allowed',
    expect: 'refused',
    weight: 1,
    givenUp: ['host'],
    request: () => ({ notificationUri: (op) => `https://management.azure.com.attacker.invalid/notify/${op}` }),
  },
  {
    name: 'uri-redirect',
    expect: 'final',
    weight: 1,
    givenUp: ['redirect'],
    request: (e) => ({ notificationUri: (op) => `${e}/redirect/${op}` }),
  },
  {
    name: 'uri-404',
    expect: 'final',
    weight: 1,
    givenUp: ['rejected'],
    request: (e) => ({ notificationUri: (op) => `${e}/status/404/${op}` }),
  },
  { name: 'uri-stream-forever', expect: 'delivered', weight: 1, request: (e) => ({ notificationUri: (op) => `${e}/stream/${op}` }) },
  { name: 'uri-throttled-once', expect: 'delivered', weight: 1, request: (e) => ({ notificationUri: (op) => `${e}/throttle/${op}` }) },
  {
    name: 'uri-500',
    expect: 'given-up',
    weight: 1,
    givenUp: ['deadline'],
    slow: true,
    request: (e) => ({ notificationUri: (op) => `${e}/status/500/${op}` }),
  },
  {
    name: 'uri-never-answers',
    expect: 'given-up',
    weight: 4,
    givenUp: ['deadline'],
    slow: true,
    request: (e) => ({ notificationUri: (op) => `${e}/hang/${op}` }),
  },
  // The time family: schema-valid times that once made a timer fire every millisecond, or a deadline
  // lie years away. Each must end as a normal document does, with no spinning timer (idle CPU, below).
  {
    name: 'time-leap-second-retried',
    expect: 'given-up',
    weight: 1,
    givenUp: ['deadline'],
    slow: true,
    request: (e) => ({
      notificationUri: (op) => `${e}/status/500/${op}`,
      documentTimes: { startTime: LEAP_SECOND, lastTransitionTime: LEAP_SECOND },
    }),
  },
  {
    name: 'time-future-transition-retried',
    expect: 'given-up',
    weight: 1,
    givenUp: ['deadline'],
    slow: true,
    request: (e) => ({ notificationUri: (op) => `${e}/status/500/${op}`, documentTimes: { lastTransitionTime: YEAR_9999 } }),
  },
  {
    name: 'time-year-9999-deadline',
    expect: 'delivered',
    weight: 1,
    request: (e) => ({
      notificationUri: (op) => `${e}/status/204/${op}`,
      documentTimes: { startTime: YEAR_9999, createOperationCompletionDeadline: YEAR_9999 },
    }),
  },
  {
    name: 'time-far-future-claim',
    expect: 'delivered',
    weight: 1,
    request: (e) => ({
      notificationUri: (op) => `${e}/status/204/${op}`,
      documentTimes: { notificationClaim: { owner: 'squatter#00000000', until: YEAR_9999 } },
    }),
  },
  {
    name: 'correlation-crlf',
    expect: 'dead-letter',
    weight: 1,
    field: 'correlationRequestId',
    request: () => ({ correlationRequestId: `${crypto.randomUUID()}\r\nx-injected: 1` }),
  },
  {
    name: 'correlation-non-ascii',
    expect: 'dead-letter',
    weight: 1,
    field: 'clientRequestId',
    request: () => ({ clientRequestId: `req-\u4e2d\u6587-\u00e9` }),
  },
  {
    name: 'correlation-300KB',
    expect: 'dead-letter',
    weight: 1,
    field: 'clientRequestId',
    request: () => ({ clientRequestId: 'x'.repeat(300_000) }),
  },
];

export interface HostileDocument {
  readonly kind: HostileKind;
  readonly target: Target;
  written?: WrittenOperation;
  writeError?: string;
}

/** `count` documents over the kinds by weight (at least one of each), in an interleaved order. */
export function planHostile(count: number, subscription: string, runId: string): HostileDocument[] {
  const total = HOSTILE_KINDS.reduce((s, k) => s + k.weight, 0);
  const perKind = HOSTILE_KINDS.map((k) => Math.max(1, Math.round((count * k.weight) / total)));
  const out: HostileDocument[] = [];
  for (let round = 0; out.length < perKind.reduce((s, n) => s + n, 0); round++) {
    for (const [i, kind] of HOSTILE_KINDS.entries()) {
      if (round < perKind[i])
        out.push({ kind, target: { sub: subscription, rg: `rg-hostile-${runId}`, cluster: `h${out.length}-${runId}` } });
    }
  }
  return out;
}

export async function writeHostile(
  frontend: FrontendSimulator,
  doc: HostileDocument,
  endpoints: { slow: string; other: string },
  arm: string,
): Promise<void> {
  try {
    doc.written = await frontend.createCluster(
      doc.target.sub,
      doc.target.rg,
      doc.target.cluster,
      {},
      doc.kind.request(doc.kind.slow ? endpoints.slow : endpoints.other, arm),
    );
  } catch (err) {
    doc.writeError = err instanceof Error ? err.message.split('\n')[0] : String(err);
  }
}
