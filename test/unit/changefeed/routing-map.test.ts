import type { Container } from '@azure/cosmos';
import { ReadTimeoutError, isTransient } from '../../../src/changefeed/errors';
import { evictFailedRoutingMap, readNextRecovering, recoverRoutingMap } from '../../../src/changefeed/feed/routing-map';

/** An SDK error: `ErrorResponse` with a numeric `code`. */
function sdkError(code: number | undefined, message = 'Service is currently unavailable.'): Error & { code?: number } {
  return Object.assign(new Error(message), code === undefined ? {} : { code });
}

/**
 * A container shaped like @azure/cosmos 4.x inside: `items.partitionKeyRangeCache` keeps one
 * promise per container link, a rejected one included, and the iterator re-wraps a failure of it
 * as an error without a status (ChangeFeedForEpkRange.fetchContinuationTokenFeedRanges).
 */
class FakeSdkContainer {
  readonly url = '/dbs/db/colls/feed/';
  readonly cache = { collectionRoutingMapByCollectionId: {} as Record<string, Promise<string[]> | undefined> };
  readonly items = { partitionKeyRangeCache: this.cache, getChangeFeedIterator: () => ({ readNext: () => this.readNext() }) };
  pkrangesRequests = 0;
  /** Answers of the next pkranges requests; an Error is a failed request. */
  pkranges: Array<string[] | Error> = [];

  private routingMap(): Promise<string[]> {
    const key = 'dbs/db/colls/feed';
    this.cache.collectionRoutingMapByCollectionId[key] ??= (async () => {
      this.pkrangesRequests++;
      const answer = this.pkranges.shift() ?? ['0'];
      if (answer instanceof Error) throw answer;
      return answer;
    })();
    return this.cache.collectionRoutingMapByCollectionId[key]!;
  }

  async readNext(): Promise<{ statusCode: number; ranges: string[] }> {
    try {
      return { statusCode: 304, ranges: await this.routingMap() };
    } catch (err) {
      throw sdkError(undefined, (err as Error).message);
    }
  }

  get container(): Container {
    return this as unknown as Container;
  }
}

describe('routing map recovery (@azure/cosmos caches a failed partition key range lookup)', () => {
  it('reproduces the trap: after one failed lookup every read fails without a request, and looks permanent', async () => {
    const fake = new FakeSdkContainer();
    fake.pkranges = [sdkError(503)];
    for (let i = 0; i < 3; i++) {
      const err = await fake.readNext().catch((e: unknown) => e);
      expect(isTransient(err)).toBe(false);
    }
    expect(fake.pkrangesRequests).toBe(1);
  });

  it('evicts the failed entry and hands back its error with the status; the next read fetches again', async () => {
    const fake = new FakeSdkContainer();
    fake.pkranges = [sdkError(503)];
    const err = await fake.readNext().catch((e: unknown) => e);
    const recovered = await recoverRoutingMap(fake.container, err);
    expect(recovered.routingMap).toBe(true);
    expect(recovered.error).toMatchObject({ code: 503 });
    expect(isTransient(recovered.error)).toBe(true);
    await expect(fake.readNext()).resolves.toMatchObject({ statusCode: 304 });
    expect(fake.pkrangesRequests).toBe(2);
  });

  it('every reader that failed on the same cached promise gets the real error, whichever evicted it', async () => {
    const fake = new FakeSdkContainer();
    fake.pkranges = [sdkError(503)];
    const errors = await Promise.all([0, 1, 2, 3].map(() => fake.readNext().catch((e: unknown) => e)));
    // One reader recovers first (and evicts); the others only look afterwards.
    const first = await recoverRoutingMap(fake.container, errors[0]);
    const rest = await Promise.all(errors.slice(1).map((e) => recoverRoutingMap(fake.container, e)));
    for (const r of [first, ...rest]) {
      expect(r.routingMap).toBe(true);
      expect(isTransient(r.error)).toBe(true);
    }
    expect(fake.pkrangesRequests).toBe(1);
  });

  it('leaves a resolved or pending routing map alone, and keeps errors that are not its wrapper', async () => {
    const fake = new FakeSdkContainer();
    await fake.readNext();
    const resolved = fake.cache.collectionRoutingMapByCollectionId['dbs/db/colls/feed'];
    const status = sdkError(429, 'Request rate is large');
    await expect(recoverRoutingMap(fake.container, status)).resolves.toEqual({ error: status, routingMap: false });
    expect(fake.cache.collectionRoutingMapByCollectionId['dbs/db/colls/feed']).toBe(resolved);

    const pending = new Promise<string[]>(() => undefined);
    fake.cache.collectionRoutingMapByCollectionId['dbs/db/colls/feed'] = pending;
    await expect(evictFailedRoutingMap(fake.container)).resolves.toBeUndefined();
    expect(fake.cache.collectionRoutingMapByCollectionId['dbs/db/colls/feed']).toBe(pending);

    const timeout = new ReadTimeoutError(5_000, { leaseToken: '0-FF' });
    await expect(recoverRoutingMap(fake.container, timeout)).resolves.toEqual({ error: timeout, routingMap: false });
  });

  it('a failed entry is evicted even when the read failed otherwise, but the read error is kept unless it is the wrapper', async () => {
    const fake = new FakeSdkContainer();
    fake.pkranges = [sdkError(503, 'pkranges failed')];
    await fake.readNext().catch(() => undefined);
    const other = sdkError(undefined, 'The continuation token is not for the current container definition');
    const recovered = await recoverRoutingMap(fake.container, other);
    expect(recovered).toEqual({ error: other, routingMap: true });
    expect(fake.cache.collectionRoutingMapByCollectionId['dbs/db/colls/feed']).toBeUndefined();
  });

  it('readNextRecovering rethrows the real error and the next attempt succeeds (start position, lag estimate)', async () => {
    const fake = new FakeSdkContainer();
    fake.pkranges = [sdkError(503)];
    const iterator = fake.items.getChangeFeedIterator();
    await expect(readNextRecovering(fake.container, iterator)).rejects.toMatchObject({ code: 503 });
    await expect(readNextRecovering(fake.container, fake.items.getChangeFeedIterator())).resolves.toMatchObject({ statusCode: 304 });
  });

  it('does nothing for a container without the SDK internals (other SDK versions, test doubles)', async () => {
    const plain = { items: {} } as unknown as Container;
    const err = sdkError(undefined, 'boom');
    await expect(evictFailedRoutingMap(plain)).resolves.toBeUndefined();
    await expect(recoverRoutingMap(plain, err)).resolves.toEqual({ error: err, routingMap: false });
  });
});
