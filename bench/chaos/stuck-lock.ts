/**
 * A frontend that takes a subscription lock (infra/frontend/subscription-lock.ts, the Locks
 * container with its 10 s TTL) and then hangs for longer than the TTL. Watched from outside: when
 * the lock document vanished (TTL) or changed owner, who held it next, and what the stuck frontend
 * found when it finally released it.
 */
import type { Container } from '@azure/cosmos';
import { withFrontendLock } from '@opstream/frontend-simulator/subscription-lock';
import { sleep, statusOf } from './util';

const STUCK_OWNER = 'chaos-stuck-frontend';

export interface StuckLockResult {
  readonly subscription: string;
  readonly acquiredAt: number;
  readonly heldForMs: number;
  /** Acquire → the stuck frontend's lock document was gone (expired) or owned by another. */
  readonly freedAfterMs: number | undefined;
  /** Owners that held the lock after it was freed, while the stuck frontend still hung. */
  readonly nextOwners: readonly string[];
  /** Who held the lock when the stuck frontend woke up and released it ("nobody" if no one). */
  readonly ownerAtRelease: string;
  readonly error?: string;
}

interface LockDoc {
  owner?: unknown;
}

async function ownerOf(locks: Container, id: string): Promise<string | undefined> {
  try {
    const { resource } = await locks.item(id, id).read<LockDoc>();
    return resource ? String(resource.owner) : undefined;
  } catch (err) {
    if (statusOf(err) === 404) return undefined;
    throw err;
  }
}

export async function holdStuckLock(locks: Container, subscription: string, holdMs: number): Promise<StuckLockResult> {
  const id = subscription.toLowerCase();
  let acquiredAt = 0;
  let freedAt: number | undefined;
  const nextOwners: string[] = [];
  let ownerAtRelease = 'unknown';
  let watching = true;
  const watch = async (): Promise<void> => {
    while (watching) {
      const owner = await ownerOf(locks, id).catch(() => STUCK_OWNER);
      if (acquiredAt > 0 && owner !== STUCK_OWNER) {
        freedAt ??= Date.now();
        if (owner !== undefined && !nextOwners.includes(owner)) nextOwners.push(owner);
      }
      await sleep(100);
    }
  };
  let watcher: Promise<void> | undefined;
  try {
    await withFrontendLock(
      locks,
      subscription,
      STUCK_OWNER,
      async () => {
        acquiredAt = Date.now();
        watcher = watch();
        await sleep(holdMs);
        ownerAtRelease = (await ownerOf(locks, id).catch(() => 'unreadable')) ?? 'nobody';
      },
      { timeoutMs: 60_000 },
    );
  } catch (err) {
    return {
      subscription: id,
      acquiredAt,
      heldForMs: Date.now() - acquiredAt,
      freedAfterMs: undefined,
      nextOwners,
      ownerAtRelease,
      error: String(err),
    };
  } finally {
    watching = false;
    await watcher;
  }
  return {
    subscription: id,
    acquiredAt,
    heldForMs: holdMs,
    freedAfterMs: freedAt === undefined ? undefined : freedAt - acquiredAt,
    nextOwners,
    ownerAtRelease,
  };
}
