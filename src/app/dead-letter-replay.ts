import type { Container } from '@azure/cosmos';
import type { ServiceBusMessage } from '@azure/service-bus';
import { cosmosStatus, CosmosRequestError, withoutSystemFields, type DeadLettersRepository } from '../cosmos';
import { OpstreamError } from '../domain/errors';
import type { DeadLetter, Stored } from '../domain/types';
import { check } from '../schemas/validator';
import { messageOfEvent } from '../service-bus/operation-event-message';
import { topicOfDeadLetterContainer } from '../service-bus/operation-events-publisher';

/** Why a replay was refused (`ReplayError.kind`). */
export type ReplayFailure = 'not-found' | 'invalid' | 'conflict' | 'unsupported';

export class ReplayError extends OpstreamError {
  readonly retriable = false;
  constructor(
    readonly kind: ReplayFailure,
    message: string,
    context: Record<string, string | undefined> = {},
  ) {
    super(message, { context });
  }
}

/** Source containers a dead letter can be replayed into, with the schema their documents follow. */
const REPLAYABLE = { Operations: 'operation' } as const;

export interface ReplayDeps {
  deadLetters: DeadLettersRepository;
  /** Source containers by id (`Operations`). */
  sources: Readonly<Record<string, Container>>;
  /**
   * Sends one message to a topic (dead letters of reason `publication`); resolves `too-large` when
   * the topic cannot take it. Absent when no Service Bus namespace is configured.
   */
  publish?: (topic: string, message: ServiceBusMessage) => Promise<'sent' | { tooLarge: number }>;
}

export interface ReplayResult {
  deadLetterId: string;
  container: string;
  documentId: string;
  partitionKey: string;
  /**
   * `replaced`: the source document was still the dead-lettered version; `created`: it was gone;
   * `published`: an Operation event sent to its topic (`container` is then `topic:{name}`);
   * `checked`: a dry run, the document is valid and nothing was written.
   */
  write: 'replaced' | 'created' | 'overwritten' | 'published' | 'checked';
}

/** The dead letter with this id (a point read with the partition key, else a cross-partition query). */
export async function findDeadLetter(repo: DeadLettersRepository, id: string, partitionKey?: string): Promise<Stored<DeadLetter>> {
  const found =
    partitionKey !== undefined
      ? await repo.read(partitionKey, id)
      : (await repo.documents.query({ query: 'SELECT * FROM c WHERE c.id = @id', parameters: [{ name: '@id', value: id }] })).items[0];
  if (!found) {
    throw new ReplayError(
      'not-found',
      `no dead letter "${id}"${partitionKey !== undefined ? ` in partition "${partitionKey}"` : ''}; "opstream dead-letters list" shows them`,
      { deadLetterId: id },
    );
  }
  return found;
}

/**
 * Replaying a dead letter: its document (or a fixed version of it) is validated with the schema
 * of its source container, written back there, and the dead letter is deleted, so the change feed
 * delivers the document to the pipeline again.
 *
 * The write is guarded: when the source document still exists it is replaced only if it is still
 * the version that was dead-lettered (If-Match on the `_etag` kept in the dead letter), so a replay
 * never overwrites newer data unless forced. The dead letter is deleted only after the write.
 * A dead letter whose document copy was cut to fit (`truncated`) is replayed only with a fixed
 * document (`--file`): its own copy is not the document.
 */
export async function replayDeadLetter(
  deps: ReplayDeps,
  deadLetter: Stored<DeadLetter>,
  options: { fixed?: unknown; force?: boolean; dryRun?: boolean } = {},
): Promise<ReplayResult> {
  const containerId = deadLetter.source.container;
  const topic = topicOfDeadLetterContainer(containerId);
  if (topic !== undefined) return republish(deps, deadLetter, topic, options.fixed, options.dryRun ?? false);
  const kind = REPLAYABLE[containerId as keyof typeof REPLAYABLE];
  const target = deps.sources[containerId];
  if (!kind || !target) {
    throw new ReplayError(
      'unsupported',
      `dead letter ${deadLetter.id} comes from container "${containerId}"; only ${Object.keys(REPLAYABLE).join(', ')} documents can be replayed`,
    );
  }
  if (options.fixed === undefined && deadLetter.truncated) {
    const { originalBytes, cut } = deadLetter.truncated;
    throw new ReplayError(
      'invalid',
      `dead letter ${deadLetter.id} keeps only part of the document (${originalBytes} bytes, cut: ${cut.join(', ')}); replaying it would write that part: ` +
        `fix the whole document (${containerId}/${deadLetter.source.id ?? '?'} in partition ${deadLetter.source.partitionKey ?? '?'}, if still there) and pass it with --file`,
      { deadLetterId: deadLetter.id },
    );
  }
  const document = withoutSystemFields(objectToReplay(deadLetter, options.fixed));
  const checked = check(kind, document);
  if (!checked.ok) {
    const hint = options.fixed === undefined ? '; fix it and pass it with --file' : '';
    throw new ReplayError('invalid', `dead letter ${deadLetter.id}: the document is still invalid: ${checked.error.message}${hint}`, {
      deadLetterId: deadLetter.id,
      field: checked.error.field,
    });
  }
  const { id, partitionKey } = checked.value;
  const etag = deadLetter.source.id === id ? (deadLetter.source.etag ?? (deadLetter.document as { _etag?: unknown })._etag) : undefined;
  if (options.dryRun) return { deadLetterId: deadLetter.id, container: containerId, documentId: id, partitionKey, write: 'checked' };
  const write = await writeBack(
    target,
    document,
    { id, partitionKey, etag: typeof etag === 'string' ? etag : undefined, force: options.force ?? false },
    deadLetter.id,
  );
  await deps.deadLetters.delete(deadLetter.partitionKey, deadLetter.id);
  return { deadLetterId: deadLetter.id, container: containerId, documentId: id, partitionKey, write };
}

async function writeBack(
  container: Container,
  body: Record<string, unknown>,
  at: { id: string; partitionKey: string; etag?: string; force: boolean },
  deadLetterId: string,
): Promise<ReplayResult['write']> {
  try {
    if (at.force) {
      await container.items.upsert(body);
      return 'overwritten';
    }
    if (at.etag !== undefined) {
      try {
        await container.item(at.id, at.partitionKey).replace(body, { accessCondition: { type: 'IfMatch', condition: at.etag } });
        return 'replaced';
      } catch (err) {
        if (cosmosStatus(err) !== 404) throw err;
      }
    }
    await container.items.create(body);
    return 'created';
  } catch (err) {
    const status = cosmosStatus(err);
    if (status === 412 || status === 409) {
      throw new ReplayError(
        'conflict',
        `${container.id} document "${at.id}" changed since it was dead-lettered (or exists already); replaying would overwrite it: check it, then replay with --force`,
        { deadLetterId, documentId: at.id },
      );
    }
    throw new CosmosRequestError(`write ${container.id}/${at.id}`, err, { partitionKey: at.partitionKey, documentId: at.id });
  }
}

function objectToReplay(deadLetter: Stored<DeadLetter>, fixed: unknown): Record<string, unknown> {
  const given = fixed ?? deadLetter.document;
  if (given === null || typeof given !== 'object' || Array.isArray(given)) {
    throw new ReplayError('invalid', `the document to replay must be a JSON object (dead letter ${deadLetter.id})`, {
      deadLetterId: deadLetter.id,
    });
  }
  return given as Record<string, unknown>;
}

/**
 * A dead letter of reason `publication` holds the Operation event its topic did not take: replaying
 * it publishes that event (or a cut version, `--file`) with the message id and session the
 * publisher gives it, so the topic's duplicate detection drops it if the original went out after all.
 */
async function republish(
  deps: ReplayDeps,
  deadLetter: Stored<DeadLetter>,
  topic: string,
  fixed: unknown,
  dryRun: boolean,
): Promise<ReplayResult> {
  const context = { deadLetterId: deadLetter.id, topic };
  if (!deps.publish) {
    throw new ReplayError(
      'unsupported',
      `dead letter ${deadLetter.id} is an Operation event for topic ${topic}: replaying it publishes it, which needs Service Bus: set OPSTREAM_SERVICE_BUS_CONNECTION_STRING or OPSTREAM_SERVICE_BUS_NAMESPACE (or "dead-letters discard" it)`,
      context,
    );
  }
  const checked = check('operationEvent', withoutSystemFields(objectToReplay(deadLetter, fixed)));
  if (!checked.ok) {
    const hint = fixed === undefined ? '; fix it and pass it with --file' : '';
    throw new ReplayError('invalid', `dead letter ${deadLetter.id}: the event is still invalid: ${checked.error.message}${hint}`, {
      ...context,
      field: checked.error.field,
    });
  }
  const event = checked.value;
  if (dryRun)
    return {
      deadLetterId: deadLetter.id,
      container: deadLetter.source.container,
      documentId: event.id,
      partitionKey: event.subscriptionId,
      write: 'checked',
    };
  const sent = await deps.publish(topic, messageOfEvent(event));
  if (sent !== 'sent') {
    throw new ReplayError(
      'invalid',
      `dead letter ${deadLetter.id}: the event is still larger than topic ${topic} takes (at most ${sent.tooLarge} bytes per message): cut its free text ("dead-letters show ${deadLetter.id}"), pass it with --file, or discard it`,
      context,
    );
  }
  await deps.deadLetters.delete(deadLetter.partitionKey, deadLetter.id);
  return {
    deadLetterId: deadLetter.id,
    container: deadLetter.source.container,
    documentId: event.id,
    partitionKey: event.subscriptionId,
    write: 'published',
  };
}
