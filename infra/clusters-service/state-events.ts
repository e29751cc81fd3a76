/**
 * State-change events, as a Clusters Service with publish-subscribe would send them: one event each
 * time a cluster or node pool reports a new state (including `deleted` when it is gone). States
 * are derived from time (lifecycle.ts), so every object touched through the store is watched with
 * timers at the instants its state may change. A timer that fires late (a busy event loop) still
 * publishes every state passed meanwhile, in order, each with its own instant. An object is
 * forgotten once it is gone.
 */
import { transitionInstants, type Phase } from './lifecycle';
import type { SimulatorStore } from './store';
import { clusterHref, nodePoolHref } from './views';

/** The body of one event (schemas/cs-event.schema.json). */
export interface CsStateEvent {
  readonly kind: 'Cluster' | 'NodePool';
  readonly id: string;
  readonly href: string;
  readonly state: string;
  readonly time: string;
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
  ) {}

  /** After a change through the store: publish the state if new, and watch the object (and a cluster's node pools). */
  touched(clusterId: string, nodePoolId?: string): void {
    this.watch(clusterId, nodePoolId);
    // Deleting (or failing) a cluster changes what its node pools report too.
    if (nodePoolId === undefined) for (const np of this.store.nodePoolIdsOf(clusterId)) this.watch(clusterId, np);
  }

  close(): void {
    this.closed = true;
    for (const set of this.timers.values()) for (const t of set) clearTimeout(t);
    this.timers.clear();
  }

  private watch(clusterId: string, nodePoolId?: string): void {
    const href = nodePoolId === undefined ? clusterHref(clusterId) : nodePoolHref(clusterId, nodePoolId);
    const lifecycles = this.store.lifecyclesOf(clusterId, nodePoolId);
    this.check(clusterId, nodePoolId, href);
    const now = this.now();
    for (const instant of new Set(lifecycles.flatMap(transitionInstants))) {
      if (instant <= now) continue;
      this.arm(href, instant - now + AFTER_INSTANT_MS, () => this.check(clusterId, nodePoolId, href));
    }
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

  private check(clusterId: string, nodePoolId: string | undefined, href: string): void {
    if (this.closed) return;
    const now = this.now();
    const since = this.last.get(href)?.at ?? -Infinity;
    const passed = [...new Set(this.store.lifecyclesOf(clusterId, nodePoolId).flatMap(transitionInstants))]
      .filter((t) => t > since && t < now)
      .sort((a, b) => a - b);
    for (const at of [...passed, now]) {
      if (!this.publishState(clusterId, nodePoolId, href, at)) return;
    }
  }

  /** Publishes the state at `at` when it differs from the last one; false once the object is gone. */
  private publishState(clusterId: string, nodePoolId: string | undefined, href: string, at: number): boolean {
    const phase: Phase | 'recoverable_error' = this.store.stateAt(clusterId, nodePoolId, at);
    const state = phase === 'gone' ? 'deleted' : phase;
    const previous = this.last.get(href);
    this.last.set(href, { state, at });
    if (previous?.state === state) return true;
    if (state === 'deleted') {
      this.last.delete(href);
      for (const t of this.timers.get(href) ?? []) clearTimeout(t);
      this.timers.delete(href);
    }
    this.publish({
      kind: nodePoolId === undefined ? 'Cluster' : 'NodePool',
      id: nodePoolId ?? clusterId,
      href,
      state,
      time: new Date(at).toISOString(),
    });
    return state !== 'deleted';
  }
}
