import type { Container } from '@azure/cosmos';
import { sleep } from '../util/backoff';
import type { ChangeFeedLogger } from '../logger';
import type { Emit } from '../events';
import type { StartFrom } from '../options';
import type { LeaseStore } from '../lease/lease-store';
import { createLeaseDocument } from '../lease/lease-document';
import { resolveStartEtag } from './start-position';

/** Seconds the `.lock` document lives: a bootstrapper that crashed blocks others this long at most. */
const BOOTSTRAP_LOCK_TTL_SECONDS = 30;

export interface BootstrapDeps {
  feedContainer: Container;
  store: LeaseStore;
  startFrom: StartFrom;
  nowMs: () => number;
  emit: Emit;
  logger: ChangeFeedLogger;
  signal: AbortSignal;
  /** Pause between checks while another instance holds the lock. @defaultValue 250 */
  waitMs?: number;
}

/**
 * Creates one lease per feed range the first time any instance of the processor starts (the
 * .NET `.info`/`.lock` protocol): whoever creates the `.lock` document creates the leases (with
 * their start position resolved and persisted), then the `.info` marker, then deletes the lock.
 * Others wait for `.info`. Lease ids are deterministic, so a bootstrap that crashed half-way and is
 * repeated by someone else never duplicates a lease. Returns the number of leases created.
 */
export async function bootstrapLeases(deps: BootstrapDeps): Promise<number> {
  const waitMs = deps.waitMs ?? 250;
  for (;;) {
    if (await deps.store.isInitialized()) return 0;
    const lockEtag = await deps.store.acquireInitLock(BOOTSTRAP_LOCK_TTL_SECONDS);
    if (lockEtag === undefined) {
      await sleep(waitMs, deps.signal);
      continue;
    }
    try {
      if (await deps.store.isInitialized()) return 0;
      const created = await createLeasesForAllRanges(deps);
      await deps.store.markInitialized();
      deps.logger.info('change feed lease store initialised', { prefix: deps.store.prefix, leasesCreated: created });
      return created;
    } finally {
      await deps.store.releaseInitLock(lockEtag);
    }
  }
}

async function createLeasesForAllRanges(deps: BootstrapDeps): Promise<number> {
  const ranges = await deps.feedContainer.getFeedRanges();
  let created = 0;
  for (const range of ranges) {
    const continuation = await resolveStartEtag(deps.feedContainer, range, deps.startFrom);
    const lease = createLeaseDocument({
      prefix: deps.store.prefix,
      range: { min: range.minInclusive, max: range.maxExclusive },
      continuationToken: continuation,
      owner: null,
      nowMs: deps.nowMs(),
    });
    const result = await deps.store.createIfNotExists(lease);
    if (result.created) {
      created++;
      deps.emit({ type: 'changefeed.lease.created', leaseToken: lease.LeaseToken, continuation });
    }
  }
  return created;
}
