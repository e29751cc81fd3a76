import { exitCodeFor } from '../../../src/cli/exit-codes';
import type { Container } from '@azure/cosmos';
import { replayDeadLetter, ReplayError, type ReplayDeps } from '../../../src/app/dead-letter-replay';
import type { DeadLettersRepository } from '../../../src/cosmos';
import { deadLetterFor } from '../../../src/cosmos/dead-letters-repository';
import type { DeadLetter, Stored } from '../../../src/domain/types';
import { operationExample } from '../../fixtures/aro-hcp-documents';

/** Deps whose writes are recorded; nothing answers but the calls the test expects. */
function deps(): { deps: ReplayDeps; writes: string[] } {
  const writes: string[] = [];
  const record = (what: string) => async () => {
    writes.push(what);
    return {};
  };
  const operations = {
    id: 'Operations',
    items: { create: record('create'), upsert: record('upsert') },
    item: () => ({ replace: record('replace') }),
  } as unknown as Container;
  const deadLetters = { delete: record('delete-dead-letter') } as unknown as DeadLettersRepository;
  return { deps: { deadLetters, sources: { Operations: operations } }, writes };
}

describe('replaying a dead letter whose document copy was cut', () => {
  const doc: Record<string, unknown> = { ...operationExample({ status: 'Bogus' }), padding: 'p'.repeat(2_000) };
  const cut = deadLetterFor({ container: 'Operations', document: doc, reason: 'validation', error: 'bad' }, 0, 60, {
    maxBytes: 1_000,
    maxDepth: 64,
  }) as Stored<DeadLetter>;

  it('is refused without --file (exit 65): its copy is not the document', async () => {
    expect(cut.truncated).toMatchObject({ cut: ['size'] });
    const { deps: d, writes } = deps();
    const err = await replayDeadLetter(d, cut).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ReplayError);
    expect(err).toMatchObject({ kind: 'invalid' });
    expect(exitCodeFor(err)).toBe(65);
    expect((err as Error).message).toContain(
      `fix the whole document (Operations/${String(doc.id)} in partition ${String(doc.partitionKey)}, if still there) and pass it with --file`,
    );
    expect(writes).toEqual([]);
  });

  it('replays a fixed document given with --file, over the dead-lettered version (its etag)', async () => {
    const { deps: d, writes } = deps();
    const fixed: Record<string, unknown> = { ...doc, status: 'Accepted' };
    delete fixed.padding;
    await expect(replayDeadLetter(d, cut, { fixed })).resolves.toMatchObject({ write: 'replaced' });
    expect(writes).toEqual(['replace', 'delete-dead-letter']);
  });
});
