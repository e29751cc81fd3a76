import type { KitClustersService } from '../../clusters-service';
import type { OperationsRepository, ResourcesRepository, SubscriptionsRepository } from '../../cosmos';
import type { ArmResourceId } from '../../domain/ids';
import type { ResourceType } from '../../domain/resource-types';
import type { NonTerminalStatus } from '../../domain/statuses';
import type { Operation, OperationRequest, OperationStatus, Resource, Stored } from '../../domain/types';
import type { Logger } from '../../logging/logger';
import type { Clock } from '../../util/clock';
import type { PipelineSettings } from '../context';
import type { PipelineEvents } from '../events';
import type { CsEventHints } from '../cs-hints';
import type { FollowState } from './follow/schedule';
import type { FollowSettings } from './follow/settings';
import { again, type Outcome } from '../queue/outcome';
import type { TransitionChange, TransitionResult } from './write-back';

/**
 * A processor is a level-based reconciler for one kind of operation: from the current documents and
 * what Clusters Service says, it takes at most one step, writes back, and says whether to look again
 * and when. It remembers no phase between runs (any instance, any run, decides the same from the
 * same state), so it may run again on the same state after a crash, a replay or a lease move.
 */
export type Phase = 'dispatch' | 'follow';

export interface OperationWork {
  op: Stored<Operation>;
  resource: Stored<Resource>;
  arm: ArmResourceId;
  /** Pacing memory of the status follow in this instance (when to look again, never what to do). */
  follow: FollowState;
  logger: Logger;
  /**
   * Past its deadline (from the documents and the clock): this look is the last one, and what CS
   * reports is what the deadline's failure will say.
   */
  late?: boolean;
}

/** The parts of each repository a processor may call. */
type KitOperations = Pick<OperationsRepository, 'read' | 'listNonTerminal'>;
type KitResources = Pick<ResourcesRepository, 'read' | 'readByResourceId' | 'findFor' | 'update' | 'delete' | 'listChildrenOf'>;
type KitSubscriptions = Pick<SubscriptionsRepository, 'tenantIdOf'>;

/**
 * What a processor may use during one handling, and nothing more. `cs` calls are cancelled and
 * writes refused once the handling is fenced (its lease moved to another instance).
 */
export interface ProcessorKit {
  readonly operations: KitOperations;
  readonly resources: KitResources;
  readonly subscriptions: KitSubscriptions;
  /** Scoped to the handling: fenced, and sending its correlation headers. */
  readonly cs: KitClustersService;
  readonly clock: Clock;
  readonly settings: PipelineSettings;
  readonly events: PipelineEvents;
  /** The status write-back under the subscription lock (Resource first, then Operation). */
  writeBack(op: Stored<Operation>, change: TransitionChange, resource?: Stored<Resource>): Promise<TransitionResult>;
  /**
   * Records the CS href a dispatch got on the Operation (after the Resource got it) and, with
   * `status`, moves the Operation there in the same write (a Create: Provisioning). The Operation as
   * written (undefined when it is gone).
   */
  recordDispatched(op: Stored<Operation>, internalId: string, status?: NonTerminalStatus): Promise<Stored<Operation> | undefined>;
  /** Runs `fn` holding the subscription lock; its signal aborts when the lock or the lease is lost. */
  underLock<T>(partitionKey: string, fn: (signal: AbortSignal) => Promise<T>): Promise<T>;
  /** Throws when the handling must stop before its next side effect (its lease moved). */
  checkFence(): void;
}

export interface OperationProcessor {
  readonly name: string;
  readonly resourceType: ResourceType;
  readonly request: OperationRequest;
  /** `any` for processors that find their step from Clusters Service themselves (deletes). */
  readonly phase: Phase | 'any';
  reconcile(work: OperationWork, kit: ProcessorKit): Promise<Outcome>;
  /**
   * A Delete's processor, for a Delete whose Resource document is gone (the frontend deleted it, or
   * it never existed): asks Clusters Service to delete what it still holds for the ARM resource and
   * says how many objects are still there; the Delete is done once none is.
   */
  removeLeftovers?(arm: ArmResourceId, kit: ProcessorKit): Promise<number>;
}

/** What the composition root gives the processor set when it builds it. */
export interface ProcessorTools {
  /** The shared status reads go through it (not fenced: they serve every follower). */
  cs: KitClustersService;
  clock: Clock;
  follow: FollowSettings;
  /** Clusters Service events, when they are received. */
  csEvents?: CsEventHints;
}

/** Builds the processor set (`processors/registry.ts` is the default). */
export type ProcessorFactory = (tools: ProcessorTools) => readonly OperationProcessor[];

/**
 * The operation was just ended (written terminal): handle it again right away, which notifies ARM
 * (the terminal branch of the reconciler), after which the queue lets it go.
 */
export const ended = (status: OperationStatus, why?: string): Outcome => again(0, `${why ?? status}: notify`);
