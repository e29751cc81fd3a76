import { randomUUID } from 'crypto';
import { Harness, readOperation, startHarness } from '../helpers/opstream-harness';
import { waitFor } from '../helpers/wait-for';

/**
 * A Delete written while a Create is parked between two looks: the Create ends Canceled at once,
 * by its own handling that the Delete's arrival brings forward, not at its next look (a minute away
 * here) nor when the Delete ends (CS uninstalls for a minute here), and no query per look is needed
 * for it.
 */
describe('a Delete supersedes a parked Create', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness({ settings: { 'follow.initialDelayMs': 60_000, 'follow.maxDelayMs': 60_000 } });
  });
  afterAll(() => h.close());

  it('the Create ends Canceled while the Delete still follows the uninstall', async () => {
    const sub = randomUUID();
    await h.frontend.registerSubscription(sub, randomUUID());
    h.cs.admin.setDurations({ installingMs: 120_000, uninstallingMs: 120_000 });
    const create = await h.frontend.createCluster(sub, 'rg-parked', 'parked');
    // Dispatched: the Create now waits a minute for its first look.
    await waitFor(async () => (await readOperation(h, create))?.internalId, { timeoutMs: 20_000 });
    const del = await h.frontend.deleteCluster(sub, 'rg-parked', 'parked');
    expect(await h.terminal(create, 20_000)).toBe('Canceled');
    expect((await readOperation(h, create))?.error).toEqual({ code: 'Canceled', message: 'This operation was superseded by another' });
    expect((await readOperation(h, del))?.status).toBe('Deleting');
  });
});
