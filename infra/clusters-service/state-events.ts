/**
 * State-change events, as a Clusters Service with publish-subscribe would send them: one event each
 * time a cluster, node pool, break-glass credential or external auth reports a new state (including
 * `deleted` when it is gone). States are derived from time (lifecycle.ts, break-glass.ts,
 * external-auths.ts), so every object touched through the store is watched with timers at the
 * instants its state may change. A timer that fires late (a busy event loop) still publishes every
 * state passed meanwhile, in order, each with its own instant. An object is forgotten once it is gone.
 */
import { transitionInstants, type Phase } from './lifecycle';
import type { SimulatorStore } from './store';
import { clusterHref, nodePoolHref } from './views';

/** The body of one event (schemas/cs-event.schema.json). */
export interface CsStateEvent {
  readonly kind: 'Cluster' | 'NodePool' | 'BreakGlassCredential' | 'ExternalAuth';
  readonly id: string;
  readonly href: string;
  readonly state: string;
  readonly time: string;
}

/** One object as the events follow it. */
export interface WatchedObject {
  readonly kind: CsStateEvent['kind'];
  readonly id: string;
  readonly href: string;
  /** What its status call reports at `at`, or `deleted` once it is gone. Reads only. */
  stateAt(at: number): string;
  /** Every instant at which its state may change by itself, in no order. */
  instants(): number[];
}

/** Timers fire a little after an instant: a boundary is `>=`, and a timer may fire a millisecond early. */
const AFTER_INSTANT_MS = 2;

export class StateEvents {
  /** Last state published per href, and the instant it was read at. */
  private readonly last = new Map<string, { state: string; at: number }>();
  private readonly timers = new Map<string, Set<NodeJS.Timeout>>();
  private closed = false;

  constructor(
    private readonly store: SimulatorStore,
    private readonly now: () => number,
    private readonly publish: (event: CsStateEvent) => void,
    /** A cluster's other objects (credentials, external auths): a cluster's deletion takes them along. */
    private readonly childrenOf: (clusterId: string) => WatchedObject[] = () => [],
  ) {}

  /** After a change through the store: publish the state if new, and watch the object (and a cluster's node pools and children). */
  touched(clusterId: string, nodePoolId?: string): void {
    this.follow(this.clusterObject(clusterId, nodePoolId));
    if (nodePoolId !== undefined) return;
    // Deleting (or failing) a cluster changes what its node pools report too; deleting it removes its children.
    for (const np of this.store.nodePoolIdsOf(clusterId)) this.follow(this.clusterObject(clusterId, np));
    for (const child of this.childrenOf(clusterId)) this.follow(child);
  }

  /** After a change to any object: publish its state if new, and watch it. */
  follow(object: WatchedObject): void {
    this.check(object);
    const now = this.now();
    for (const instant of new Set(object.instants())) {
      if (instant <= now) continue;
      this.arm(object.href, instant - now + AFTER_INSTANT_MS, () => this.check(object));
    }
  }

  close(): void {
    this.closed = true;
    for (const set of this.timers.values()) for (const t of set) clearTimeout(t);
    this.timers.clear();
  }

  private clusterObject(clusterId: string, nodePoolId?: string): WatchedObject {
    const store = this.store;
    return {
      kind: nodePoolId === undefined ? 'Cluster' : 'NodePool',
      id: nodePoolId ?? clusterId,
      href: nodePoolId === undefined ? clusterHref(clusterId) : nodePoolHref(clusterId, nodePoolId),
      stateAt(at) {
        const phase: Phase | 'recoverable_error' = store.stateAt(clusterId, nodePoolId, at);
        return phase === 'gone' ? 'deleted' : phase;
      },
      instants: () => store.lifecyclesOf(clusterId, nodePoolId).flatMap(transitionInstants),
    };
  }

  private arm(href: string, delayMs: number, fire: () => void): void {
    if (this.closed) return;
    let set = this.timers.get(href);
    if (!set) this.timers.set(href, (set = new Set()));
    const timer: NodeJS.Timeout = setTimeout(() => {
      set.delete(timer);
      fire();
    }, delayMs);
    timer.unref();
    set.add(timer);
  }

  private check(object: WatchedObject): void {
    if (this.closed) return;
    const now = this.now();
    const since = this.last.get(object.href)?.at ?? -Infinity;
    const passed = [...new Set(object.instants())].filter((t) => t > since && t < now).sort((a, b) => a - b);
    for (const at of [...passed, now]) {
      if (!this.publishState(object, at)) return;
    }
  }

  /** Publishes the state at `at` when it differs from the last one; false once the object is gone. */
  private publishState(object: WatchedObject, at: number): boolean {
    const { href } = object;
    const state = object.stateAt(at);
    const previous = this.last.get(href);
    this.last.set(href, { state, at });
    if (previous?.state === state) return true;
    if (state === 'deleted') {
      this.last.delete(href);
      for (const t of this.timers.get(href) ?? []) clearTimeout(t);
      this.timers.delete(href);
    }
    this.publish({ kind: object.kind, id: object.id, href, state, time: new Date(at).toISOString() });
    return state !== 'deleted';
  }
}
