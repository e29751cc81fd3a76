/**
 * Why ARM was told twice, per duplicated notification, from outside: who delivered each copy (opstream
 * names its instance in the `User-Agent` of a notification) and when the harness killed whom.
 *
 * - kill: the first deliverer was SIGKILLed right after delivering, before it could record it — the
 *   one duplicate DESIGN allows (the new owner cannot know whether ARM got it);
 * - same-instance: one instance delivered twice (a retry after a response it never read);
 * - handover: another, live instance delivered again — the claim lapsed under a deliverer still at
 *   work, or was not respected: a defect;
 * - unattributed: a copy without an instance name (not sent by opstream, or by an old build).
 */

export interface Arrival {
  readonly at: number;
  /** The delivering instance's id (`name#token`), from the User-Agent; undefined when absent. */
  readonly by: string | undefined;
}

export interface Kill {
  readonly victim: string;
  readonly killAt: number;
}

export type DuplicateCause = 'kill' | 'same-instance' | 'handover' | 'unattributed';
const DUPLICATE_CAUSES: readonly DuplicateCause[] = ['kill', 'same-instance', 'handover', 'unattributed'];

/**
 * A kill explains a duplicate when the first deliverer died at most this long after the arrival
 * (the clearing write takes milliseconds; the rest is the harness's own event-loop lag) or a
 * little before it (a request already in the socket when the process died is read afterwards).
 */
const KILL_AFTER_DELIVERY_MS = 3_000;
const KILL_BEFORE_ARRIVAL_MS = 1_000;

export interface DuplicateExplanation {
  readonly operation: string;
  readonly cause: DuplicateCause;
  readonly copies: number;
  /** "+12.3 s chaos-i1-g2, +17.1 s chaos-i3-g1" (times from `t0`). */
  readonly detail: string;
}

/** `chaos-i1-g2#a1b2c3d4` → `chaos-i1-g2`, the name the harness kills by. */
function instanceName(id: string): string {
  const hash = id.indexOf('#');
  return hash < 0 ? id : id.slice(0, hash);
}

/** `opstream/1.2.0 (chaos-i1-g2#a1b2c3d4)` → `chaos-i1-g2#a1b2c3d4`. */
export function instanceFromUserAgent(userAgent: string | undefined): string | undefined {
  const m = userAgent ? /^opstream\/\S+ \(([^)]+)\)/.exec(userAgent) : null;
  return m ? m[1] : undefined;
}

export function explainDuplicates(
  arrivals: ReadonlyMap<string, readonly Arrival[]>,
  kills: readonly Kill[],
  t0: number,
): DuplicateExplanation[] {
  const out: DuplicateExplanation[] = [];
  for (const [operation, list] of arrivals) {
    if (list.length < 2) continue;
    const sorted = [...list].sort((a, b) => a.at - b.at);
    out.push({
      operation,
      cause: causeOf(sorted, kills),
      copies: sorted.length,
      detail: sorted.map((a) => `+${((a.at - t0) / 1000).toFixed(1)} s ${a.by ?? '?'}`).join(', '),
    });
  }
  return out;
}

function causeOf(sorted: readonly Arrival[], kills: readonly Kill[]): DuplicateCause {
  const first = sorted[0] as Arrival;
  if (sorted.some((a) => a.by === undefined)) return 'unattributed';
  const name = instanceName(first.by as string);
  const died = kills.some(
    (k) => k.victim === name && k.killAt >= first.at - KILL_BEFORE_ARRIVAL_MS && k.killAt <= first.at + KILL_AFTER_DELIVERY_MS,
  );
  if (died) return 'kill';
  if (sorted.every((a) => a.by === first.by)) return 'same-instance';
  return 'handover';
}

export function countByCause(explanations: readonly DuplicateExplanation[]): Record<DuplicateCause, number> {
  const counts = Object.fromEntries(DUPLICATE_CAUSES.map((c) => [c, 0])) as Record<DuplicateCause, number>;
  for (const e of explanations) counts[e.cause] += e.copies - 1;
  return counts;
}
