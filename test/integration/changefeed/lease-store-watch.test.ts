import { createLeaseDocument } from '../../../src/changefeed/lease/lease-document';
import { LeaseStore } from '../../../src/changefeed/lease/lease-store';
import { systemClock } from '../../../src/changefeed/util/clock';
import { startTestCosmos, type TestCosmos } from '../../helpers/cosmos';
import { FAST, createContainers } from './harness';

describe('the lease store: what a settled instance reads between full listings', () => {
  let cosmos: TestCosmos;
  beforeAll(async () => {
    cosmos = await startTestCosmos();
  });
  afterAll(async () => {
    await cosmos.close();
  });

  it("listWatched returns the watched owner's leases and those nobody holds, of this processor only", async () => {
    const c = await createContainers(cosmos);
    const doc = (prefix: string, min: string, max: string, owner: string | null) =>
      createLeaseDocument({ prefix, range: { min, max }, continuationToken: null, owner, nowMs: Date.now() });
    const { Owner: _omitted, ...ownerless } = doc('p', '30', 'FF', null);
    for (const lease of [
      doc('p', '', '10', 'a'),
      doc('p', '10', '20', 'b'),
      doc('p', '20', '30', null),
      ownerless,
      doc('q', '', 'FF', 'a'),
    ])
      await c.leases.items.create(lease);
    const store = new LeaseStore(c.leases, 'p', systemClock, FAST.engineRetry!);
    const watched = await store.listWatched('a');
    expect(watched.map((l) => `${l.LeaseToken}:${l.Owner ?? 'none'}`).sort()).toEqual(['-10:a', '20-30:none', '30-FF:none']);
  });
});
