import { mkdtempSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { CLUSTER_TYPE, clusterArmId, operationStatusId, resourceDocumentId } from '@opstream/frontend-simulator';
import { runCli, spawnCli } from '../../helpers/cli';
import { startRunningInstance, type RunningInstance } from '../../helpers/running-instance';
import { uniqueName, waitFor } from '../../helpers/wait-for';

interface DeadLetterJson {
  id: string;
  partitionKey: string;
  reason: string;
  source: { container: string; id?: string };
  error: { message: string; path?: string };
  document: Record<string, unknown>;
}

/**
 * What a buggy frontend might write: a valid Resource, and its Operation with a misspelt status.
 * The pipeline dead-letters the Operation; the operator fixes it and replays it.
 */
async function writeMalformedCreate(
  instance: RunningInstance,
  mutate: (op: Record<string, unknown>) => void,
): Promise<{ operation: Record<string, unknown>; sub: string }> {
  const sub = crypto.randomUUID();
  await instance.frontend.registerSubscription(sub, crypto.randomUUID());
  const armId = clusterArmId(sub, 'rg', uniqueName('broken'));
  const opId = crypto.randomUUID();
  const now = new Date().toISOString();
  await instance.database.container('Resources').items.upsert({
    id: resourceDocumentId(armId),
    partitionKey: sub,
    resourceId: armId,
    resourceType: CLUSTER_TYPE,
    internalId: '',
    createOperationCompletionDeadline: new Date(Date.now() + 3_600_000).toISOString(),
    properties: { version: '4.18', region: 'eastus', managedResourceGroupName: 'rg-managed' },
    activeOperationId: opId,
    provisioningState: 'Accepted',
  });
  const operation: Record<string, unknown> = {
    id: opId,
    partitionKey: sub,
    tenantId: crypto.randomUUID(),
    clientId: crypto.randomUUID(),
    request: 'Create',
    externalId: armId,
    internalId: '',
    operationId: operationStatusId(sub, 'eastus', opId),
    notificationUri: `${instance.receiver.url}/notify/${opId}`,
    startTime: now,
    lastTransitionTime: now,
    status: 'Accepted',
  };
  const broken = structuredClone(operation);
  mutate(broken);
  await instance.frontend.writeRawOperation(broken);
  return { operation, sub };
}

describe('opstream dead-letters against a running instance', () => {
  let instance: RunningInstance;
  const dir = mkdtempSync(join(tmpdir(), 'opstream-dl-'));
  beforeAll(async () => {
    instance = await startRunningInstance();
  });
  afterAll(() => instance?.close());

  async function waitForDeadLetter(sourceId: string): Promise<DeadLetterJson> {
    let last = '';
    return waitFor(
      async () => {
        const result = await runCli(['dead-letters', 'list', '--json'], instance.cliEnv);
        last = result.stdout + result.stderr;
        return (JSON.parse(result.stdout) as DeadLetterJson[]).find((d) => d.source.id === sourceId);
      },
      { timeoutMs: 30_000, intervalMs: 200, describe: () => `a dead letter of ${sourceId}; last listing: ${last}` },
    );
  }

  it('replays a fixed document: validated, written back, processed by the pipeline, dead letter deleted', async () => {
    const { operation } = await writeMalformedCreate(instance, (op) => (op.status = 'Acepted'));
    const opId = operation.id as string;
    const deadLetter = await waitForDeadLetter(opId);
    expect(deadLetter).toMatchObject({ reason: 'validation', source: { container: 'Operations', id: opId }, error: { path: '/status' } });

    const table = await runCli(['dead-letters', 'list'], instance.cliEnv);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^ID +SOURCE +REASON +AT +ERROR\n/);
    expect(table.stdout).toContain(`${deadLetter.id}  Operations/${opId}  validation`);

    // As stored, it is still invalid: nothing is written, the dead letter stays.
    const unfixed = await runCli(['dead-letters', 'replay', deadLetter.id], instance.cliEnv);
    expect(unfixed.code).toBe(65);
    expect(unfixed.stderr).toMatch(
      new RegExp(
        `^opstream: dead letter ${deadLetter.id}: the document is still invalid: invalid operation "${opId}": status .*; fix it and pass it with --file\\n$`,
      ),
    );

    // The operator's route: show → fix → replay --file.
    const shown = await runCli(['dead-letters', 'show', deadLetter.id], instance.cliEnv);
    expect(shown.code).toBe(0);
    const fixed = JSON.parse(shown.stdout) as Record<string, unknown>;
    expect(fixed.status).toBe('Acepted');
    fixed.status = 'Accepted';
    const file = join(dir, 'fixed.json');
    writeFileSync(file, JSON.stringify(fixed, null, 2));

    // A dry run validates and writes nothing; off a terminal a replay needs --yes.
    const dry = await runCli(['dead-letters', 'replay', deadLetter.id, '--file', file, '--dry-run', '--json'], instance.cliEnv);
    expect(dry.code).toBe(0);
    expect(JSON.parse(dry.stdout)).toMatchObject({ dryRun: true, deadLetterId: deadLetter.id, write: 'checked' });
    const unconfirmed = await runCli(['dead-letters', 'replay', deadLetter.id, '--file', file], instance.cliEnv);
    expect(unconfirmed.code).toBe(2);
    expect(unconfirmed.stderr).toContain('not confirmed; pass --yes');

    const replay = await runCli(
      ['dead-letters', 'replay', deadLetter.id, '--partition-key', deadLetter.partitionKey, '--file', file, '--yes'],
      instance.cliEnv,
    );
    expect(replay.stderr).toBe('');
    expect(replay.code).toBe(0);
    expect(replay.stdout).toBe(
      `replayed ${deadLetter.id}: Operations/${opId} (partition ${operation.partitionKey as string}) replaced; the dead letter is deleted and the pipeline will process the document again\n`,
    );

    const notified = await instance.receiver.waitForNotification(opId, 30_000);
    expect((notified.body as { status: string }).status).toBe('Succeeded');
    const { resource } = await instance.database
      .container('Operations')
      .item(opId, operation.partitionKey as string)
      .read<Record<string, unknown>>();
    expect(resource?.status).toBe('Succeeded');
    const after = JSON.parse((await runCli(['dead-letters', 'list', '--json'], instance.cliEnv)).stdout) as DeadLetterJson[];
    expect(after.find((d) => d.id === deadLetter.id)).toBeUndefined();
  });

  it('refuses to overwrite a source document that changed since it was dead-lettered (exit 1), unless forced', async () => {
    const { operation } = await writeMalformedCreate(instance, (op) => (op.request = 'Recreate'));
    const opId = operation.id as string;
    const deadLetter = await waitForDeadLetter(opId);
    // The frontend writes the document again meanwhile (still broken in another way).
    await instance.frontend.writeRawOperation({ ...operation, request: 'Recreate', status: 'Acepted' });
    const file = join(dir, 'changed.json');
    writeFileSync(file, JSON.stringify(operation));
    const refused = await runCli(['dead-letters', 'replay', deadLetter.id, '--file', file, '--yes'], instance.cliEnv);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`Operations document "${opId}" changed since it was dead-lettered`);
    const forced = await runCli(['dead-letters', 'replay', deadLetter.id, '--file', file, '--force', '--yes'], instance.cliEnv);
    expect(forced.code).toBe(0);
    expect(forced.stdout).toContain('overwritten');
    expect((await instance.receiver.waitForNotification(opId, 30_000)).body).toMatchObject({ status: 'Succeeded' });
  });

  it('replay --all reports each dead letter with progress and keeps the ones still invalid (exit 1)', async () => {
    const a = await writeMalformedCreate(instance, (op) => (op.status = 'Done'));
    const b = await writeMalformedCreate(instance, (op) => delete op.startTime);
    await waitForDeadLetter(a.operation.id as string);
    await waitForDeadLetter(b.operation.id as string);
    const all = spawnCli(['dead-letters', 'replay', '--all', '--yes'], instance.cliEnv);
    const result = await all.exited;
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^replayed 0 of \d+ dead letter\(s\); \d+ kept \(see above\)\n$/);
    expect(result.stderr).toMatch(/\[\.{20}\] 0\/\d+ replaying /); // one progress line per step when not on a terminal
    expect(result.stderr).toMatch(
      new RegExp(`\nkept \\w+: the document is still invalid: invalid operation "${a.operation.id as string}": status must be one of`),
    );
    expect(result.stderr).toMatch(
      new RegExp(`\nkept \\w+: the document is still invalid: invalid operation "${b.operation.id as string}": startTime is required`),
    );
    expect(result.stderr).toMatch(/opstream: \d+ dead letter\(s\) could not be replayed\n$/);
  });

  it('says what is wrong with the arguments: no id (exit 2), an unknown id (exit 66), a missing file (exit 66)', async () => {
    const none = await runCli(['dead-letters', 'replay'], instance.cliEnv);
    expect(none.code).toBe(2);
    expect(none.stderr).toBe('opstream: replay takes either one dead letter id (optionally with --file) or --all\n');
    const unknown = await runCli(['dead-letters', 'replay', 'no-such-id'], instance.cliEnv);
    expect(unknown.code).toBe(66);
    expect(unknown.stderr).toBe('opstream: no dead letter "no-such-id"; "opstream dead-letters list" shows them\n');
    const noFile = await runCli(['dead-letters', 'replay', 'x', '--file', join(dir, 'nope.json')], instance.cliEnv);
    expect(noFile.code).toBe(66);
    expect(noFile.stderr).toMatch(/^opstream: cannot read --file .*nope\.json: ENOENT/);
  });
});
