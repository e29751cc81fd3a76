import { randomUUID } from 'crypto';
import { runCli } from '../helpers/cli';
import { startRunningInstance, type RunningInstance } from '../helpers/running-instance';
import { uniqueName, waitFor } from '../helpers/wait-for';

interface NudgeJson {
  operationId: string;
  dryRun: boolean;
  instance: string;
  nudged: boolean;
  state: { state: string; reason?: string; dueAt?: string };
}

/**
 * `opstream operations nudge`: an operation parked for its next Clusters Service check (set ten
 * minutes apart here) is looked at now at the instance that holds it, found through its lease, and
 * completes. The CLI, a running instance behind an ops token, the Cosmos emulator, the CS simulator.
 */
describe('opstream operations nudge', () => {
  jest.setTimeout(120_000);
  let instance: RunningInstance;
  beforeAll(async () => {
    instance = await startRunningInstance({
      settings: { 'follow.initialDelayMs': 600_000, 'follow.maxDelayMs': 600_000, 'ops.token': `ops-${randomUUID()}` },
    });
  });
  afterAll(() => instance?.close());

  it('--dry-run shows the parked look, --yes brings it forward and the create completes; a terminal one is not parked (exit 1)', async () => {
    const sub = randomUUID();
    await instance.frontend.registerSubscription(sub, randomUUID());
    const op = await instance.frontend.createCluster(sub, 'rg', uniqueName('nudged'));
    let last = '';
    const dry = await waitFor(
      async () => {
        const result = await runCli(['operations', 'nudge', op.operationId, '--dry-run', '--json'], instance.cliEnv);
        last = `exit ${result.code}: ${result.stdout} ${result.stderr}`;
        if (result.code !== 0) return undefined;
        const report = JSON.parse(result.stdout) as NudgeJson;
        return report.state.state === 'parked' && report.state.reason === 'clusters-service' ? report : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 200, describe: () => `the create to be parked for its next CS check; last: ${last}` },
    );
    expect(dry).toMatchObject({
      operationId: op.operationId,
      dryRun: true,
      instance: instance.config.changefeed.instanceName,
      nudged: false,
    });
    expect(Date.parse(dry.state.dueAt as string) - Date.now()).toBeGreaterThan(60_000);

    const unconfirmed = await runCli(['operations', 'nudge', op.operationId], instance.cliEnv);
    expect(unconfirmed.code).toBe(2);
    expect(unconfirmed.stderr).toContain('not confirmed; pass --yes');

    const nudged = await runCli(['operations', 'nudge', op.operationId, '--yes', '--json'], instance.cliEnv);
    expect(nudged.stderr).toBe('');
    expect(nudged.code).toBe(0);
    expect(JSON.parse(nudged.stdout)).toMatchObject({ operationId: op.operationId, dryRun: false, nudged: true });
    // Ten minutes early: the cluster is ready in the simulator, the look finds it.
    expect(await instance.terminal(op, 30_000)).toBe('Succeeded');

    const again = await runCli(['operations', 'nudge', op.operationId, '--yes'], instance.cliEnv);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`operation ${op.operationId} is not parked at`);
  });

  it('the ops server takes a nudge only as a JSON POST with the token', async () => {
    const url = `${instance.opsUrl}/api/operations/x/nudge`;
    const auth = { authorization: `Bearer ${instance.config.ops.token as string}` };
    expect((await fetch(url, { method: 'POST' })).status).toBe(401);
    expect((await fetch(url, { method: 'POST', headers: auth })).status).toBe(415);
    expect((await fetch(url, { headers: auth })).status).toBe(405);
    const answer = await fetch(url, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: '{}' });
    expect(answer.status).toBe(200);
    expect(await answer.json()).toMatchObject({ nudged: false, state: { operationId: 'x', state: 'absent' } });
  });
});
