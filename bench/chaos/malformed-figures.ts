/**
 * What became of each malformed document, read from the DeadLetters container (dead letters per
 * source id, with reason and error), the Operations container (the hostile-but-valid ones must be
 * terminal) and the CS simulator's calls (a quote-name Delete must not delete the cluster its
 * injection names, and no search may be refused as unparsable).
 */
import type { ClustersService } from './clusters-service';
import type { EndState } from './end-state';
import type { MalformedDocument } from './malformed';
import { TERMINAL } from './terminal-watch';
import type { IssuedOperation } from './workload';

interface MalformedRow {
  readonly kind: string;
  readonly id: string;
  readonly bytes: number;
  readonly writeStatus: number;
  readonly deadLetters: number;
  readonly reason: string;
  readonly error: string;
  readonly outcome: string;
  /** Every dead letter of it says why (reason and error message). */
  readonly withReason: boolean;
  readonly ok: boolean;
}

export interface MalformedFigures {
  written: number;
  refusedByCosmos: string[];
  expectedDeadLetters: number;
  deadLetteredOnce: number;
  notDeadLettered: number;
  deadLetteredMoreThanOnce: number;
  withoutReason: number;
  hostileValid: number;
  hostileSettled: number;
  victimsHarmed: number;
  searchesRefused: number;
  searchesRefusedSample: string[];
  validOperationsDeadLettered: number;
  rows: MalformedRow[];
}

export function malformedFigures(
  docs: readonly MalformedDocument[],
  state: EndState,
  cs: ClustersService,
  issued: readonly IssuedOperation[],
): MalformedFigures {
  const dls = new Map<string, EndState['deadLetters'][number][]>();
  for (const d of state.deadLetters) {
    const id = d.source?.id;
    if (id === undefined) continue;
    dls.set(id, [...(dls.get(id) ?? []), d]);
  }
  const hostileStatus = new Map(state.hostile.map((h) => [h.id, String(h.status)]));
  const rows: MalformedRow[] = [];
  let victimsHarmed = 0;
  for (const doc of docs) {
    const letters = dls.get(doc.id) ?? [];
    const first = letters[0];
    const reason = first ? String(first.reason) : '';
    const error = first ? `${first.error?.path ?? ''} ${first.error?.message ?? ''}`.trim().slice(0, 140) : '';
    const withReason = letters.every((l) => String(l.reason ?? '') !== '' && (l.error?.message ?? '') !== '');
    const base = {
      kind: doc.kind,
      id: doc.id,
      bytes: doc.bytes ?? 0,
      writeStatus: doc.writeStatus ?? 0,
      deadLetters: letters.length,
      reason,
      error,
      withReason,
    };
    if (doc.writeStatus !== 201) {
      rows.push({
        ...base,
        outcome: `not stored: Cosmos answered ${doc.writeStatus ?? 'nothing'} (${doc.writeError ?? ''})`,
        ok: letters.length === 0,
      });
      continue;
    }
    if (doc.expect === 'dead-letter') {
      const ok = letters.length === 1 && withReason;
      rows.push({ ...base, outcome: letters.length === 1 ? 'dead-lettered once' : `dead-lettered ${letters.length} times`, ok });
      continue;
    }
    const status = hostileStatus.get(doc.id) ?? 'missing';
    const harmed = doc.victim ? harmedVictim(doc, cs, issued) : 0;
    victimsHarmed += harmed > 0 ? 1 : 0;
    const settled = TERMINAL.has(status) || letters.length === 1;
    const outcome = `${letters.length ? `dead-lettered ${letters.length}×` : status}${harmed ? `; victim cluster deleted ${harmed}× early` : '; victim untouched'}`;
    rows.push({ ...base, outcome, ok: settled && harmed === 0 && letters.length <= 1 });
  }
  const stored = rows.filter((r) => r.writeStatus === 201);
  const expected = stored.filter((r) => docs.find((d) => d.id === r.id)?.expect === 'dead-letter');
  const hostile = stored.filter((r) => docs.find((d) => d.id === r.id)?.expect === 'settle');
  const universe = new Set(state.operations.map((o) => o.id));
  const refusedSearches = cs.notable.filter((c) => c.endpoint === 'GET /clusters' && c.status === 400);
  return {
    written: stored.length,
    refusedByCosmos: rows.filter((r) => r.writeStatus !== 201).map((r) => `${r.kind} (${r.bytes} bytes): ${r.writeStatus}`),
    expectedDeadLetters: expected.length,
    deadLetteredOnce: expected.filter((r) => r.deadLetters === 1).length,
    notDeadLettered: expected.filter((r) => r.deadLetters === 0).length,
    deadLetteredMoreThanOnce: expected.filter((r) => r.deadLetters > 1).length,
    withoutReason: expected.filter((r) => r.deadLetters > 0 && !r.withReason).length,
    hostileValid: hostile.length,
    hostileSettled: hostile.filter((r) => r.ok).length,
    victimsHarmed,
    searchesRefused: refusedSearches.length,
    searchesRefusedSample: refusedSearches.slice(0, 3).map((c) => c.search ?? ''),
    validOperationsDeadLettered: state.deadLetters.filter((d) => d.source?.id !== undefined && universe.has(d.source.id)).length,
    rows,
  };
}

/** Deletes of the victim's CS cluster after the hostile document was written and before the victim's own Delete. */
function harmedVictim(doc: MalformedDocument, cs: ClustersService, issued: readonly IssuedOperation[]): number {
  const v = doc.victim;
  if (!v) return 0;
  const key = `${v.sub}/${v.rg}/${v.cluster}`.toLowerCase();
  const ids = new Set([...cs.createdIdentity].filter(([, k]) => k === key).map(([id]) => id));
  const ownDelete = issued.find(
    (o) => o.step === 'deleteCluster' && o.target.sub === v.sub && o.target.rg === v.rg && o.target.cluster === v.cluster,
  );
  const until = ownDelete?.writtenAt ?? Infinity;
  return cs.notable.filter((c) => {
    if (c.endpoint !== 'DELETE /clusters/{id}' || c.at < (doc.writtenAt ?? 0) || c.at >= until) return false;
    const id = c.path.split('/')[2] ?? '';
    return ids.has(id) && (c.status === 'dropped' || (typeof c.status === 'number' && c.status < 300));
  }).length;
}
