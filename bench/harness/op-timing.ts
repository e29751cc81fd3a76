/**
 * Per-operation timings from what the harness saw: the frontend's acknowledged write, the CS call
 * log, and the Operation document's terminal `lastTransitionTime` (stamped by the system when it
 * wrote the terminal status).
 *
 * - reaction  = first CS call about the operation's resource at/after the write − the write
 * - CS final  = the call that started the CS work (POST 201 / PATCH 200 / DELETE 204) + the object's
 *               drawn phase durations (ready after create/update, gone after delete)
 * - completion lag = terminal write − CS final
 * - end-to-end     = terminal write − frontend write
 */
import type { Container } from '@azure/cosmos';
import type { WrittenOperation } from '@opstream/frontend-simulator';
import { parseArmResourceId } from '../../src/domain/ids';
import { resourceKeyOf, type CallLog, type LoggedCall } from './call-log';
import { drawDurations, type DurationProfile } from './seeded-durations';

export interface OperationOutcome {
  readonly op: WrittenOperation;
  /** Terminal status in the Operation document (undefined: not terminal). */
  readonly status: string | undefined;
  /** Date.parse(lastTransitionTime) of the terminal write. */
  readonly terminalAt: number | undefined;
}

export interface OperationTiming {
  /** CS calls about the operation's resource between its write and its terminal write. */
  readonly csCalls: number;
  readonly reactionMs: number | undefined;
  readonly completionLagMs: number | undefined;
  readonly endToEndMs: number | undefined;
  /** When the call that started the CS work arrived, and when CS reached its final state (from the drawn durations). */
  readonly startedAt?: number;
  readonly csDoneAt?: number;
}

const START_ACTION = { Create: 'create', Update: 'update', Delete: 'delete' } as const;
const START_STATUS = { Create: 201, Update: 200, Delete: 204 } as const;

export function timingOf(outcome: OperationOutcome, log: CallLog, profile: DurationProfile, seed: number, scale: number): OperationTiming {
  const { op, terminalAt } = outcome;
  const key = resourceKeyOf(op.externalId);
  const first = log.first(key, op.writtenAt, terminalAt ?? Infinity);
  const reactionMs = first ? first.at - op.writtenAt : undefined;
  const endToEndMs = terminalAt !== undefined ? terminalAt - op.writtenAt : undefined;
  let completionLagMs: number | undefined;
  let csDoneAt: number | undefined;
  // Only lifecycle steps have a Clusters Service call that starts them (a credential action does not).
  const request = op.request === 'Create' || op.request === 'Update' || op.request === 'Delete' ? op.request : undefined;
  const started: LoggedCall | undefined =
    terminalAt === undefined || request === undefined
      ? undefined
      : log.first(key, op.writtenAt, terminalAt, (c) => c.action === START_ACTION[request] && c.status === START_STATUS[request]);
  if (started && terminalAt !== undefined && request !== undefined) {
    const arm = parseArmResourceId(op.externalId);
    const d = drawDurations(
      profile,
      {
        kind: arm.nodePoolName === undefined ? 'cluster' : 'nodePool',
        action: START_ACTION[request],
        clusterName: arm.clusterName.toLowerCase(),
        ...(arm.nodePoolName === undefined ? {} : { nodePoolId: arm.nodePoolName.toLowerCase() }),
      },
      seed,
      scale,
    );
    const csWork =
      op.request === 'Create'
        ? d.pendingMs + d.validatingMs + d.installingMs
        : op.request === 'Update'
          ? d.updatingMs
          : d.deleteStartMs + d.uninstallingMs;
    csDoneAt = started.at + csWork;
    completionLagMs = terminalAt - csDoneAt;
  }
  const csCalls = log.between(key, op.writtenAt, terminalAt ?? Infinity).length;
  return {
    csCalls,
    reactionMs,
    completionLagMs,
    endToEndMs,
    ...(started ? { startedAt: started.at } : {}),
    ...(csDoneAt !== undefined ? { csDoneAt } : {}),
  };
}

/** Reads the terminal status and time of every operation of the database. */
export async function readOutcomes(operations: Container, ops: readonly WrittenOperation[]): Promise<OperationOutcome[]> {
  const { resources } = await operations.items
    .query<{ id: string; status: string; lastTransitionTime: string }>('SELECT c.id, c.status, c.lastTransitionTime FROM c')
    .fetchAll();
  const byId = new Map(resources.map((r) => [r.id, r]));
  const terminal = new Set(['Succeeded', 'Failed', 'Canceled']);
  return ops.map((op) => {
    const doc = byId.get(op.operationId);
    const isTerminal = doc !== undefined && terminal.has(doc.status);
    return { op, status: isTerminal ? doc.status : undefined, terminalAt: isTerminal ? Date.parse(doc.lastTransitionTime) : undefined };
  });
}
