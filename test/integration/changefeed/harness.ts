import type { Container, Database, PartitionKeyDefinition } from '@azure/cosmos';
import type { ChangeFeedProcessor, ChangeFeedProcessorOptions } from '@opstream/changefeed';
import type { ChangeFeedContext } from '../../../src/changefeed/handler';
import { createTestDatabase, hashV2Key, startTestCosmos, type TestCosmos } from '../../helpers/cosmos';
import { uniqueName } from '../../helpers/wait-for';

/** Short intervals for tests, through options only. */
export const FAST: Omit<ChangeFeedProcessorOptions, 'processorName'> = {
  leaseAcquireIntervalMs: 250,
  leaseRenewIntervalMs: 500,
  leaseExpirationMs: 2_500,
  maxPollDelayMs: 50,
  checkpointIntervalMs: 100,
  readTimeoutMs: 5_000,
  stallTimeoutMs: 20_000,
  handlerRetry: { retries: 1, initialDelayMs: 10, maxDelayMs: 50, multiplier: 2, jitter: 0 },
  engineRetry: { retries: Infinity, initialDelayMs: 20, maxDelayMs: 500, multiplier: 2, jitter: 0.2 },
};

export interface Doc {
  id: string;
  partitionKey: string;
  n: number;
}

export interface Containers {
  database: Database;
  feed: Container;
  leases: Container;
}

export interface ContainerOptions {
  /**
   * The monitored container's partition key: hash v2 unless told (the suites name v2 range bounds
   * such as "10-20"); `{ paths: ['/partitionKey'] }` (no version) makes a v1 container.
   */
  feedKey?: PartitionKeyDefinition;
}

export async function createContainers(cosmos: TestCosmos, options: ContainerOptions = {}): Promise<Containers> {
  const database = await createTestDatabase(cosmos.client, 'cf');
  const feedKey = options.feedKey ?? hashV2Key('/partitionKey');
  const { container: feed } = await database.containers.createIfNotExists({ id: uniqueName('feed'), partitionKey: feedKey });
  const { container: leases } = await database.containers.createIfNotExists({
    id: uniqueName('leases'),
    partitionKey: { paths: ['/id'] },
    defaultTtl: -1,
  });
  return { database, feed, leases };
}

/** Writes `count` documents with distinct partition keys (so they spread over every range). */
export async function writeDocs(feed: Container, count: number, tag: string, concurrency = 8): Promise<string[]> {
  const ids = Array.from({ length: count }, (_, i) => `${tag}-${i}`);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < ids.length) {
        const i = next++;
        await feed.items.create<Doc>({ id: ids[i], partitionKey: `pk-${tag}-${i}`, n: i });
      }
    }),
  );
  return ids;
}

/** Records every delivery: id → count, and which instance / lease saw it. */
export class Deliveries {
  readonly counts = new Map<string, number>();
  readonly byInstance = new Map<string, Set<string>>();
  readonly leasesSeen = new Set<string>();

  record(docs: readonly Doc[], context: Pick<ChangeFeedContext, 'instanceName' | 'leaseToken'>): void {
    this.leasesSeen.add(context.leaseToken);
    const mine = this.byInstance.get(context.instanceName) ?? new Set<string>();
    this.byInstance.set(context.instanceName, mine);
    for (const d of docs) {
      this.counts.set(d.id, (this.counts.get(d.id) ?? 0) + 1);
      mine.add(d.id);
    }
  }

  handler = async (docs: readonly Doc[], context: ChangeFeedContext): Promise<void> => {
    this.record(docs, context);
  };

  hasAll(ids: readonly string[]): boolean {
    return ids.every((id) => this.counts.has(id));
  }

  missing(ids: readonly string[]): string[] {
    return ids.filter((id) => !this.counts.has(id));
  }
}

/**
 * The per-file set-up of the processor suites: one emulator per file, fresh containers per test,
 * faults cleared and every processor the test started stopped after it.
 */
export interface Testbed {
  readonly cosmos: TestCosmos;
  readonly c: Containers;
  readonly processors: ChangeFeedProcessor[];
}

export function useTestbed(options: ContainerOptions = {}): Testbed {
  const state: { cosmos?: TestCosmos; c?: Containers } = {};
  const processors: ChangeFeedProcessor[] = [];
  beforeAll(async () => {
    state.cosmos = await startTestCosmos();
  });
  beforeEach(async () => {
    state.c = await createContainers(state.cosmos as TestCosmos, options);
  });
  afterEach(async () => {
    state.cosmos?.emu.clearFaults();
    await Promise.all(processors.splice(0).map((p) => p.stop()));
  });
  afterAll(async () => {
    await state.cosmos?.close();
  });
  return {
    get cosmos() {
      return state.cosmos as TestCosmos;
    },
    get c() {
      return state.c as Containers;
    },
    processors,
  };
}
