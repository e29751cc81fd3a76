/**
 * What became of the hostile documents and of the normal workload beside them, read from outside:
 * the Operations and DeadLetters containers (SDK), the ARM receiver, the hostile endpoints' counts
 * and the CS simulator's record of when each create arrived.
 */
import type { Database } from '@azure/cosmos';
import { summarize, type Summary } from '../../harness/stats';
import type { ArmEndpoint } from '../arm-endpoint';
import { identityKey, type ClustersService } from '../clusters-service';
import type { DeadLetterRow, OperationRow } from '../end-state';
import { operationFigures, stallFigures } from '../figures';
import type { Stall } from '../lag-monitor';
import { TERMINAL } from '../terminal-watch';
import { retrying } from '../util';
import type { Step } from '../frontend-requests';
import type { Workload } from '../workload';
import type { Expectation, HostileDocument } from './documents';
import type { HostileNotificationEndpoints } from './notification-endpoints';
import type { HostileProfile } from './profile';

/** A notification retried until its deadline makes a few attempts (backoff); more is a retry loop. */
const MAX_POSTS_GIVEN_UP = 30;

interface HostileRow {
  readonly kind: string;
  readonly expect: Expectation;
  readonly operationId: string;
  readonly outcome: 'dead-letter' | 'notification-ended' | 'pending' | 'not-written';
  readonly status: string;
  readonly posts: number;
  readonly armPosts: number;
  /** The dead letter's reason, or what the Operation document records of its notification. */
  readonly reason: string;
  readonly ok: boolean;
  readonly why?: string;
}

export interface HostileState {
  readonly normal: ReadonlyArray<OperationRow & { notificationGivenUp?: { reason?: string; detail?: string } }>;
  readonly notifications: ReadonlyMap<string, number>;
  readonly rows: readonly HostileRow[];
  readonly settled: boolean;
}

type FullOperation = OperationRow & Record<string, unknown>;

/** What the Operation document says of its notification besides the URI and the claim (its outcome fields). */
function notificationRecord(doc: FullOperation | undefined): string {
  if (!doc) return '';
  const fields = Object.entries(doc).filter(([k]) => /^notification/.test(k) && k !== 'notificationUri' && k !== 'notificationClaim');
  return fields.map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`).join(' ');
}

function judge(
  doc: HostileDocument,
  op: FullOperation | undefined,
  letter: DeadLetterRow | undefined,
  posts: number,
  armPosts: number,
): Pick<HostileRow, 'outcome' | 'ok' | 'why'> {
  const expect = doc.kind.expect;
  if (!doc.written) return { outcome: 'not-written', ok: false, why: `the frontend did not write it: ${doc.writeError ?? '?'}` };
  if (letter) {
    const text = `${String(letter.reason)} ${letter.error?.message ?? ''} ${letter.error?.path ?? ''}`;
    if (expect !== 'dead-letter') return { outcome: 'dead-letter', ok: false, why: 'dead-lettered, but it is a valid document' };
    if (!text.includes(doc.kind.field ?? ''))
      return { outcome: 'dead-letter', ok: false, why: `the dead letter does not name ${doc.kind.field}` };
    if (posts + armPosts > 0)
      return { outcome: 'dead-letter', ok: false, why: `${posts + armPosts} notifications sent for a dead-lettered document` };
    return { outcome: 'dead-letter', ok: true };
  }
  const ended = op !== undefined && TERMINAL.has(String(op.status)) && !op.notificationUri;
  if (!ended)
    return {
      outcome: 'pending',
      ok: false,
      why: `not settled: ${String(op?.status ?? 'missing')}${op?.notificationUri ? ', notification pending' : ''}`,
    };
  if (armPosts > 0)
    return { outcome: 'notification-ended', ok: false, why: `the ARM receiver got ${armPosts} POSTs for it (a redirect followed?)` };
  const bad = (why: string): Pick<HostileRow, 'outcome' | 'ok' | 'why'> => ({ outcome: 'notification-ended', ok: false, why });
  const recorded = (op.notificationGivenUp as { reason?: string } | undefined)?.reason;
  const wanted = doc.kind.givenUp;
  if (wanted ? !wanted.includes(recorded ?? '') : recorded !== undefined)
    return bad(`given up for ${recorded ?? 'no recorded reason'}, expected ${wanted?.join(' or ') ?? 'a delivery'}`);
  switch (expect) {
    case 'dead-letter':
      return bad('not dead-lettered');
    case 'refused':
      return posts === 0 ? { outcome: 'notification-ended', ok: true } : bad(`${posts} POSTs to a refused URI`);
    case 'final':
      return posts === 1 ? { outcome: 'notification-ended', ok: true } : bad(`${posts} POSTs where the first answer is final`);
    case 'given-up':
      // None at all when it waited for one of its origin's slots past the deadline.
      return posts <= MAX_POSTS_GIVEN_UP ? { outcome: 'notification-ended', ok: true } : bad(`${posts} POSTs before giving up`);
    case 'delivered':
      return posts >= 1 && posts <= 3 ? { outcome: 'notification-ended', ok: true } : bad(`${posts} POSTs to deliver`);
  }
}

export async function readHostileState(
  db: Database,
  arm: ArmEndpoint,
  endpoints: readonly HostileNotificationEndpoints[],
  normalIds: readonly string[],
  hostile: readonly HostileDocument[],
): Promise<HostileState> {
  const hostileIds = hostile.flatMap((h) => (h.written ? [h.written.operationId] : []));
  const query = <T>(container: string, text: string, ids: readonly string[]): Promise<T[]> =>
    retrying(
      async () =>
        (
          await db
            .container(container)
            .items.query<T>({ query: text, parameters: [{ name: '@ids', value: [...ids] }] })
            .fetchAll()
        ).resources,
      30_000,
    );
  const [normal, ops, letters] = await Promise.all([
    query<OperationRow & { notificationGivenUp?: { reason?: string; detail?: string } }>(
      'Operations',
      'SELECT c.id, c.partitionKey, c.request, c.status, c.startTime, c.lastTransitionTime, c.notificationUri, c.notificationGivenUp FROM c WHERE ARRAY_CONTAINS(@ids, c.id)',
      normalIds,
    ),
    // Everything but the correlation ids, which may be 300 KB.
    query<FullOperation>('Operations', 'SELECT * FROM c WHERE ARRAY_CONTAINS(@ids, c.id)', hostileIds),
    query<DeadLetterRow>(
      'DeadLetters',
      'SELECT c.id, c.reason, c.source, c.error FROM c WHERE ARRAY_CONTAINS(@ids, c.source.id)',
      hostileIds,
    ),
  ]);
  const notifications = arm.countsByOperation();
  const byId = new Map(ops.map((o) => [o.id, o]));
  const letterOf = new Map(letters.map((l) => [l.source?.id ?? '', l]));
  const rows: HostileRow[] = hostile.map((h) => {
    const id = h.written?.operationId ?? '';
    const op = byId.get(id);
    const letter = letterOf.get(id);
    const posts = id ? endpoints.reduce((n, e) => n + e.postsFor(id), 0) : 0;
    const armPosts = id ? (notifications.get(id) ?? 0) : 0;
    const reason = letter ? `${String(letter.reason)}: ${(letter.error?.message ?? '').slice(0, 160)}` : notificationRecord(op);
    return {
      kind: h.kind.name,
      expect: h.kind.expect,
      operationId: id,
      status: String(op?.status ?? '-'),
      posts,
      armPosts,
      reason,
      ...judge(h, op, letter, posts, armPosts),
    };
  });
  const normalDone =
    normal.length === normalIds.length &&
    normal.every((o) => TERMINAL.has(String(o.status)) && ((notifications.get(o.id) ?? 0) > 0 || o.notificationGivenUp !== undefined));
  return { normal, notifications, rows, settled: normalDone && rows.every((r) => r.outcome !== 'pending') };
}

export interface HostileResult {
  readonly verdict: 'PASS' | 'FAIL';
  readonly failures: string[];
  readonly figures: Record<string, unknown>;
  readonly byKind: Array<Record<string, unknown>>;
}

interface Round {
  readonly workload: Workload;
  readonly from: number;
  readonly to: number;
}

/** The Clusters Service call each lifecycle step of the normal workload is for. */
const CHANGE_CALL: Readonly<Record<Step, string>> = {
  createCluster: 'POST /clusters',
  createNodePool: 'POST /clusters/{id}/node_pools',
  createExternalAuth: 'POST /clusters/{id}/external_auth_config/external_auths',
  updateNodePool: 'PATCH /clusters/{id}/node_pools/{nodePool}',
  updateExternalAuth: 'PATCH /clusters/{id}/external_auth_config/external_auths/{externalAuth}',
  deleteExternalAuth: 'DELETE /clusters/{id}/external_auth_config/external_auths/{externalAuth}',
  updateCluster: 'PATCH /clusters/{id}',
  requestCredential: 'POST /clusters/{id}/break_glass_credentials',
  revokeCredentials: 'DELETE /clusters/{id}/break_glass_credentials',
  deleteNodePool: 'DELETE /clusters/{id}/node_pools/{nodePool}',
  deleteCluster: 'DELETE /clusters/{id}',
};

/** Frontend write acknowledged → Clusters Service received the step's change call, for every step of the round
 *  (every step, not only cluster creates: a p99 over a few dozen samples would be their maximum). */
function reaction(round: Round, cs: ClustersService): Summary {
  const samples = round.workload.issued.flatMap((o) => {
    const at = cs.firstChangeCallAt(
      CHANGE_CALL[o.step],
      identityKey({ subscription_id: o.target.sub, resource_group_name: o.target.rg, resource_name: o.target.cluster }),
    );
    return at === undefined ? [] : [Math.max(0, at - o.writtenAt)];
  });
  return summarize(samples);
}

export interface HostileFacts {
  readonly profile: HostileProfile;
  readonly state: HostileState;
  readonly rounds: { readonly clean: Round; readonly hostile: Round };
  readonly cs: ClustersService;
  readonly stalls: readonly Stall[];
  readonly peakRss: ReadonlyArray<{ slot: string; peakRssBytes: number }>;
  readonly unexpectedExits: number;
  readonly drained: boolean;
  readonly streamedBytes: number;
  /** Each instance's CPU while idle (cores), before the rounds and after the drain. */
  readonly idleCpuCores: { readonly before: readonly number[]; readonly after: readonly number[] };
}

/** Idle CPU after the drain may exceed the first idle window's by this much (noise of a shared machine), or double it. */
const IDLE_CPU_SLACK_CORES = 0.1;

export function hostileFigures(f: HostileFacts): HostileResult {
  const failures: string[] = [];
  const expect = (ok: boolean, what: string): void => void (ok || failures.push(what));
  const o = operationFigures(f.state.normal, f.state.notifications);
  const s = stallFigures(f.stalls, undefined, f.rounds.clean.from);
  const clean = reaction(f.rounds.clean, f.cs);
  const hostile = reaction(f.rounds.hostile, f.cs);
  const ratio = hostile.p99 / clean.p99;
  const kinds = [...new Set(f.state.rows.map((r) => r.kind))];
  const byKind = kinds.map((kind) => {
    const rows = f.state.rows.filter((r) => r.kind === kind);
    const posts = rows.map((r) => r.posts);
    return {
      kind,
      expect: rows[0].expect,
      documents: rows.length,
      accounted: rows.filter((r) => r.ok).length,
      posts: `${Math.min(...posts)}–${Math.max(...posts)}`,
      reason: rows.find((r) => r.reason)?.reason ?? '',
      notOk: rows
        .filter((r) => !r.ok)
        .slice(0, 3)
        .map((r) => `${r.operationId.slice(0, 8)}: ${r.why ?? ''}`),
    };
  });
  const notOk = f.state.rows.filter((r) => !r.ok);
  const givenUp = f.state.normal.filter((r) => r.notificationGivenUp !== undefined);
  expect(
    givenUp.length === 0,
    `${givenUp.length} normal operations' notifications given up: ${givenUp
      .slice(0, 3)
      .map((r) => `${r.id.slice(0, 8)} ${r.notificationGivenUp?.reason ?? ''} ${r.notificationGivenUp?.detail ?? ''}`)
      .join('; ')}`,
  );
  expect(o.lost === 0, `${o.lost} normal operations lost (never terminal): ${o.lostSample.join('; ')}`);
  expect(o.missingNotifications === 0, `${o.missingNotifications} normal operations never notified`);
  expect(o.duplicateNotifications === 0, `${o.duplicateNotifications} duplicate notifications of normal operations`);
  expect(s.rangesStalled === 0, `${s.rangesStalled} ranges stalled: ${s.episodes.join('; ')}`);
  expect(
    ratio <= 2,
    `reaction p99 with hostile documents ${hostile.p99} ms is ${ratio.toFixed(2)}× the clean round's ${clean.p99} ms (at most 2×)`,
  );
  expect(
    notOk.length === 0,
    `${notOk.length} of ${f.state.rows.length} hostile documents not accounted for as expected: ${notOk
      .slice(0, 5)
      .map((r) => `${r.kind} ${r.why ?? ''}`)
      .join('; ')}`,
  );
  expect(f.unexpectedExits === 0, `${f.unexpectedExits} instances exited on their own`);
  const idle = (cores: readonly number[]): number =>
    +cores
      .filter(Number.isFinite)
      .reduce((a, b) => a + b, 0)
      .toFixed(3);
  const idleBefore = idle(f.idleCpuCores.before);
  const idleAfter = idle(f.idleCpuCores.after);
  expect(
    idleAfter <= Math.max(2 * idleBefore, idleBefore + IDLE_CPU_SLACK_CORES),
    `idle CPU after the drain ${idleAfter} cores against ${idleBefore} before the rounds: a timer left spinning?`,
  );
  expect(f.drained, 'the drain did not complete');
  const figures = {
    normalOperations: o.operations,
    normalByStatus: o.byStatus,
    lost: o.lost,
    missingNotifications: o.missingNotifications,
    normalNotificationsGivenUp: givenUp.length,
    duplicateNotifications: o.duplicateNotifications,
    rangesStalled: s.rangesStalled,
    reactionCleanMs: { p50: clean.p50, p99: clean.p99, max: clean.max, n: clean.n },
    reactionWithHostileMs: { p50: hostile.p50, p99: hostile.p99, max: hostile.max, n: hostile.n },
    reactionP99Ratio: +ratio.toFixed(2),
    hostileDocuments: f.state.rows.length,
    hostileAccounted: f.state.rows.length - notOk.length,
    streamedToOpstreamMiB: +(f.streamedBytes / 2 ** 20).toFixed(1),
    peakRssMiB: Object.fromEntries(f.peakRss.map((r) => [r.slot, +(r.peakRssBytes / 2 ** 20).toFixed(1)])),
    unexpectedExits: f.unexpectedExits,
    idleCpuCores: { beforeRounds: idleBefore, afterDrain: idleAfter },
  };
  return { verdict: failures.length ? 'FAIL' : 'PASS', failures, figures, byKind };
}
