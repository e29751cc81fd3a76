/**
 * Who owns which lease in a fleet of change feed workers, as their own events tell it (acquired,
 * released, lost): the fleet benchmark reads ownership from what the instances report, so watching
 * costs the lease container no request.
 */

export interface OwnershipEvent {
  worker: number;
  type: string;
  lease?: string;
  at: number;
}

export class FleetOwnership {
  private readonly owners = new Map<string, number>();
  /** Every acquisition, in arrival order. */
  readonly acquisitions: Array<{ worker: number; lease: string; at: number }> = [];

  observe(event: OwnershipEvent): void {
    const { worker, lease, at } = event;
    if (lease === undefined) return;
    if (event.type === 'changefeed.lease.acquired') {
      this.owners.set(lease, worker);
      this.acquisitions.push({ worker, lease, at });
    } else if (event.type === 'changefeed.lease.released' || event.type === 'changefeed.lease.lost') {
      // A worker that notices a loss after the new owner's acquisition must not erase the new owner.
      if (this.owners.get(lease) === worker) this.owners.delete(lease);
    }
  }

  /** A worker is gone (killed): the leases it held are nobody's until someone acquires them. */
  forget(worker: number): string[] {
    const held = this.leasesOf(worker);
    for (const lease of held) this.owners.delete(lease);
    return held;
  }

  leasesOf(worker: number): string[] {
    return [...this.owners].filter(([, w]) => w === worker).map(([lease]) => lease);
  }

  ownerOf(lease: string): number | undefined {
    return this.owners.get(lease);
  }

  /** Leases held per worker, for the workers given (a worker holding none counts 0). */
  counts(workers: readonly number[]): number[] {
    return workers.map((w) => this.leasesOf(w).length);
  }

  /** Leases owned by one of `workers`. */
  owned(workers: readonly number[]): number {
    return this.counts(workers).reduce((s, c) => s + c, 0);
  }

  /** Every one of `leases` owned by one of `workers`, and no two of them apart by more than one lease. */
  balanced(leases: number, workers: readonly number[]): boolean {
    const counts = this.counts(workers);
    const owned = counts.reduce((s, c) => s + c, 0);
    return owned === leases && Math.max(...counts) - Math.min(...counts) <= 1;
  }

  /** Acquisitions at or after `fromMs`: in a steady state every one of them is a lease moving. */
  acquisitionsSince(fromMs: number): number {
    return this.acquisitions.filter((a) => a.at >= fromMs).length;
  }
}
