import { randomUUID } from 'node:crypto';
import type { WrittenOperation } from '@opstream/frontend-simulator';
import { readOperation, startHarness, type Harness } from '../helpers/opstream-harness';
import { waitFor } from '../helpers/wait-for';

/**
 * Correlation ids are the frontend's copy of ARM request headers, sent back as headers on every
 * Clusters Service call and ARM notification. One HTTP cannot carry (CR/LF, a character above 0xFF)
 * or of a size ARM never sends makes the document dead-lettered, naming the field, before any call
 * is made for it; the subscription's other operations go on.
 */
describe('pipeline: correlation ids outside what ARM sends', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h?.close());

  async function deadLetterOf(op: WrittenOperation): Promise<Record<string, unknown>> {
    return waitFor(
      async () => {
        const { resources } = await h.database
          .container('DeadLetters')
          .items.query<Record<string, unknown>>({
            query: 'SELECT * FROM c WHERE c.source.id = @id',
            parameters: [{ name: '@id', value: op.operationId }],
          })
          .fetchAll();
        return resources[0];
      },
      { timeoutMs: 30_000, describe: () => `the dead letter of ${op.operationId}` },
    );
  }

  it.each([
    ['correlationRequestId', 'CR/LF', 'abc\r\nx-injected: 1'],
    ['correlationRequestId', 'a character above 0xFF', `corr-\u2603-${randomUUID()}`],
    ['clientRequestId', 'CR/LF', 'client\r\n'],
    ['clientRequestId', '300 KB', 'c'.repeat(300_000)],
  ])(
    '%s with %s: dead-lettered naming the field, nothing sent to Clusters Service; the next create completes',
    async (field, _what, value) => {
      const sub = randomUUID();
      await h.frontend.registerSubscription(sub, randomUUID());
      const name = `bad-${randomUUID().slice(0, 8)}`;
      const bad = await h.frontend.createCluster(sub, 'rg', name, {}, { [field]: value });
      const good = await h.frontend.createCluster(sub, 'rg', `good-${randomUUID().slice(0, 8)}`);
      expect(await h.terminal(good)).toBe('Succeeded');

      const dead = await deadLetterOf(bad);
      expect(dead).toMatchObject({
        reason: 'validation',
        source: { container: 'Operations', id: bad.operationId },
        error: { path: `/${field}` },
      });
      expect(String((dead.error as { message: string }).message)).toContain(field);
      // Nothing was ever sent for it: no cluster, and the operation is as the frontend wrote it.
      expect(h.cs.admin.clusters().filter((c) => c.name === name)).toEqual([]);
      expect(await readOperation(h, bad)).toMatchObject({ status: 'Accepted', internalId: '' });
    },
  );
});
