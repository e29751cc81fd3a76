import type { ArmResourceId } from '../domain/ids';
import type { ResourceType } from '../domain/resource-types';
import type { Operation, OperationRequest, Resource, Stored } from '../domain/types';
import type { Logger } from '../logging/logger';
import type { PipelineContext } from './context';
import type { FollowState } from './follow-schedule';
import type { Outcome } from './outcome';

/**
 * A processor is a reconciler for one kind of operation: given the current documents it acts
 * (at most one Clusters Service step), writes back, and says whether to look again and when.
 * It must be idempotent: it may run again on the same state after a crash or a replay.
 */
export type Phase = 'dispatch' | 'follow';

export interface OperationWork {
  op: Stored<Operation>;
  resource: Stored<Resource>;
  arm: ArmResourceId;
  /** Per-operation memory of the status follow (kept between runs in this instance). */
  follow: FollowState;
  logger: Logger;
}

export interface OperationProcessor {
  readonly name: string;
  readonly resourceType: ResourceType;
  readonly request: OperationRequest;
  /** `any` for processors that decide their phase themselves (deletes). */
  readonly phase: Phase | 'any';
  reconcile(work: OperationWork, ctx: PipelineContext): Promise<Outcome>;
}
