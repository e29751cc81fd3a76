import { randomUUID } from 'crypto';
import type { CosmosClient } from '@azure/cosmos';
import type { CosmosEmulator } from '@opstream/cosmos-emulator';
import { readFileSync } from 'fs';
import { hostname } from 'os';
import { join } from 'path';
import { settingsEnv, startLocalStack, type LocalStack } from '@opstream/local-stack';
import { FrontendSimulator, type WrittenOperation } from '@opstream/frontend-simulator';
import { effectivePartitionKey, rangeContains } from '../../src/changefeed/util/epk';
import type { ExplainReport } from '../../src/inspect/explain/report';
import { validate } from '../../src/schemas/validator';
import { emulatorClient } from '../helpers/cosmos';
import { runCli, spawnCli, type CliProcess, type CliResult } from '../helpers/cli';
import { startLoopbackForward, type LoopbackForward } from '../helpers/loopback-forward';
import { FAST_CS_DURATIONS } from '../helpers/test-config';
import { uniqueName, waitFor } from '../helpers/wait-for';

/**
 * `opstream explain` across a fleet: two `opstream run` processes on one Operations container (the
 * Cosmos emulator's 4 feed ranges, 2 each), each with its ops server on its own loopback port and
 * advertising another address of its own (a loopback forward to it, as a pod's IP is on Kubernetes).
 * Operations are kept in flight (Clusters Service made slow through its `/_admin`, status checks ten
 * minutes apart) and `explain` is run as operators run it, without --owner-url: the answer is the
 * owner's. Then an owner's address cut, an owner killed with SIGKILL inside its lease, and the
 * runbook's actions for those first lines, taken from docs/runbooks.md itself and run here.
 */

const RUNBOOKS = join(__dirname, '..', '..', 'docs', 'runbooks.md');
const LEASE_EXPIRATION_MS = 60_000;

interface Instance {
  name: string;
  /** The address it advertises in its leases: a forward to its ops server. */
  advertised: LoopbackForward;
  /** Where its ops server listens (`ops.addr`, a system-chosen port). */
  bound: string;
  process: CliProcess;
}

interface LeaseJson {
  leaseToken: string;
  range: { min: string; max: string };
  owner: string | null;
  expired: boolean;
  opsUrl?: string;
  opsHost?: string;
}

/** One row of the runbook's table "On the first line of `opstream explain`": its pattern and its backticked commands. */
interface RunbookRow {
  diagnosis: string;
  commands: string[];
}

/** The rows of the explain table of docs/runbooks.md (under OpstreamOperationTooOld's **Act.**). */
function runbookExplainRows(): RunbookRow[] {
  const text = readFileSync(RUNBOOKS, 'utf8');
  const start = text.indexOf('**Act.** On the first line of `opstream explain`:');
  if (start < 0) throw new Error('docs/runbooks.md: the table of explain first lines is gone');
  const rows: RunbookRow[] = [];
  for (const line of text.slice(start).split('\n').slice(1)) {
    if (rows.length && !line.startsWith('|')) break;
    const cells = line.split(/(?<!\\)\|/).map((c) => c.trim());
    if (cells.length < 4 || /^-+$/.test(cells[1]) || cells[1] === 'diagnosis') continue;
    const diagnosis = /^`([^`]+)`/.exec(cells[1])?.[1];
    if (!diagnosis) continue;
    rows.push({ diagnosis, commands: [...cells[2].matchAll(/`([^`]+)`/g)].map((m) => m[1]) });
  }
  return rows;
}

function runbookRow(rows: RunbookRow[], startsWith: string): RunbookRow {
  const row = rows.find((r) => r.diagnosis.startsWith(startsWith));
  if (!row)
    throw new Error(`docs/runbooks.md: no explain row starting "${startsWith}" (rows: ${rows.map((r) => r.diagnosis).join(' | ')})`);
  return row;
}

/** The row's diagnosis as a pattern of a whole first line: `…` and `<placeholder>` stand for anything, `opstream-N` for the instance. */
function diagnosisPattern(row: RunbookRow, instance?: string): RegExp {
  const source = row.diagnosis
    .split(/(\s?…|<[^>]+>|opstream-N)/)
    .map((part) => {
      if (part === 'opstream-N') return escape(instance ?? 'opstream-N');
      if (/^\s?…$/.test(part) || /^<[^>]+>$/.test(part)) return '.*';
      return escape(part);
    })
    .join('');
  return new RegExp(`^${source}${row.diagnosis.endsWith('…') ? '' : '.*'}$`);
}

/** The row's command that starts with `prefix` (`opstream leases release`, `--owner-url`, …), as argv with `values` put in for its placeholders. */
function runbookCommand(row: RunbookRow, prefix: string, values: Record<string, string> = {}): string[] {
  const command = row.commands.find((c) => c.startsWith(prefix));
  if (!command)
    throw new Error(`docs/runbooks.md: the row "${row.diagnosis}" gives no \`${prefix}…\` command (it gives ${row.commands.join(', ')})`);
  const args = command.split(/\s+/).map((word) => values[word] ?? word.replace(/<[^>]+>/g, (p) => values[p] ?? p));
  const left = args.filter((a) => /<[^>]+>/.test(a));
  if (left.length) throw new Error(`docs/runbooks.md: "${command}" has a placeholder the test does not know: ${left.join(', ')}`);
  return args[0] === 'opstream' ? args.slice(1) : args;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function firstLine(result: CliResult): string {
  return result.stdout.split('\n')[0];
}

describe('opstream explain with two instances advertising their own addresses', () => {
  // Two `run` processes, then a CLI process per question; on a loaded machine each spawn takes seconds.
  jest.setTimeout(300_000);
  const opsToken = `ops-${randomUUID()}`;
  const host = hostname();
  let stack: LocalStack;
  let databaseId: string;
  let frontend: FrontendSimulator;
  let cosmosClient: CosmosClient | undefined;
  let env: Record<string, string>;
  const instances: Instance[] = [];
  const runbook = runbookExplainRows();

  async function startInstance(name: string): Promise<Instance> {
    const advertised = await startLoopbackForward();
    const process = spawnCli(['run'], {
      ...settingsEnv(stack.settings(databaseId)),
      OPSTREAM_LOG_SILENT: '',
      OPSTREAM_LOG_LEVEL: 'warn',
      OPSTREAM_CHANGEFEED_INSTANCE_NAME: name,
      OPSTREAM_CHANGEFEED_START_FROM: 'beginning',
      OPSTREAM_CHANGEFEED_LEASE_ACQUIRE_INTERVAL_MS: '300',
      OPSTREAM_CHANGEFEED_LEASE_RENEW_INTERVAL_MS: '500',
      // Long enough that a killed owner still holds its leases while it is explained.
      OPSTREAM_CHANGEFEED_LEASE_EXPIRATION_MS: String(LEASE_EXPIRATION_MS),
      OPSTREAM_CHANGEFEED_MAX_POLL_DELAY_MS: '100',
      // A create's status checks ten minutes apart: it stays parked, waiting on Clusters Service, until nudged.
      OPSTREAM_FOLLOW_INITIAL_DELAY_MS: '600000',
      OPSTREAM_FOLLOW_MAX_DELAY_MS: '600000',
      OPSTREAM_OPS_ADDR: '127.0.0.1:0',
      OPSTREAM_OPS_ADVERTISE_URL: advertised.url,
      OPSTREAM_OPS_TOKEN: opsToken,
    });
    const line = await process.waitForStderr((l) => /ops server http:\/\/127\.0\.0\.1:\d+/.test(l), 60_000, `${name} running`);
    const bound = new URL(/ops server (http:\/\/127\.0\.0\.1:\d+)/.exec(line)?.[1] as string).host;
    advertised.setTarget(bound);
    const instance = { name, advertised, bound, process };
    instances.push(instance);
    return instance;
  }

  function instance(name: string): Instance {
    return instances.find((i) => i.name === name) as Instance;
  }

  async function kill(i: Instance): Promise<void> {
    if (i.process.child.exitCode === null && i.process.child.signalCode === null) {
      i.process.child.kill('SIGKILL');
      await i.process.exited;
    }
  }

  async function leases(): Promise<LeaseJson[]> {
    const result = await runCli(['leases', '--json', '--no-lag'], env);
    if (result.code !== 0) throw new Error(`opstream leases: exit ${result.code}: ${result.stderr}`);
    return (JSON.parse(result.stdout) as { leases: LeaseJson[] }).leases;
  }

  /** Waits until each live instance holds 2 of the 4 leases, each lease naming its owner's advertised address. */
  async function balanced(live: Instance[]): Promise<LeaseJson[]> {
    let last: LeaseJson[] = [];
    return waitFor(
      async () => {
        last = await leases();
        const settled =
          last.length === 4 &&
          live.every((i) => last.filter((l) => l.owner === i.name && !l.expired && l.opsUrl === i.advertised.url).length === 2);
        return settled ? last : undefined;
      },
      {
        timeoutMs: 60_000,
        intervalMs: 250,
        describe: () =>
          `2 leases each for ${live.map((i) => `${i.name} (${i.advertised.url})`).join(', ')}; leases: ${JSON.stringify(last)}; stderr: ${live
            .map((i) => i.process.stderr().slice(-1000))
            .join(' / ')}`,
      },
    );
  }

  async function leaseOfToken(token: string): Promise<LeaseJson> {
    return (await leases()).find((l) => l.leaseToken === token) as LeaseJson;
  }

  /** Runs `opstream explain <id> [extra]` until its first line matches; returns that run. */
  async function explainUntil(id: string, first: RegExp, extra: string[] = [], timeoutMs = 60_000): Promise<CliResult> {
    let last = '';
    return waitFor(
      async () => {
        const result = await runCli(['explain', id, ...extra], env);
        last = `exit ${result.code}: ${result.stdout.slice(0, 3000)} ${result.stderr}`;
        return result.code === 0 && first.test(firstLine(result)) ? result : undefined;
      },
      { timeoutMs, intervalMs: 250, describe: () => `explain ${id} ${extra.join(' ')} to say ${first}; last: ${last}` },
    );
  }

  async function explainJson(id: string, extra: string[] = []): Promise<ExplainReport> {
    const result = await runCli(['explain', id, '--json', ...extra], env);
    if (result.code !== 0) throw new Error(`explain --json: exit ${result.code}: ${result.stderr}`);
    return validate('explainReport', JSON.parse(result.stdout));
  }

  const waitingOnCs = (owner: string): RegExp =>
    new RegExp(`^waiting on Clusters Service: cluster \\S+ for [^;]+; next check (in [^;]+|now) by ${escape(owner)}$`);

  /** One operation per feed range: a subscription whose partition key hashes into it, and a cluster create in it. */
  const opsByLease = new Map<string, WrittenOperation>();

  beforeAll(async () => {
    stack = await startLocalStack({ clustersService: { durations: FAST_CS_DURATIONS } });
    databaseId = uniqueName('explain-owners');
    env = {
      ...settingsEnv({ 'cosmos.endpoint': stack.cosmos.endpoint, 'cosmos.key': stack.cosmos.key, 'cosmos.database': databaseId }),
      OPSTREAM_CHANGEFEED_LEASE_EXPIRATION_MS: String(LEASE_EXPIRATION_MS),
      OPSTREAM_CHANGEFEED_LEASE_RENEW_INTERVAL_MS: '500',
      OPSTREAM_CHANGEFEED_LEASE_ACQUIRE_INTERVAL_MS: '300',
      OPSTREAM_OPS_TOKEN: opsToken,
      // explain asks Clusters Service too (its state is on the first line).
      OPSTREAM_CLUSTERS_SERVICE_URL: stack.clustersService.url,
    };
    // Clusters Service slow, as operators find it: a cluster installs for an hour.
    const slow = await fetch(`${stack.clustersService.url}/_admin/durations`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${stack.clustersService.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ installingMs: 3_600_000 }),
    });
    expect(slow.status).toBe(200);
    await startInstance('opstream-a');
    await startInstance('opstream-b');
    const split = await balanced(instances);
    cosmosClient = emulatorClient(stack.cosmos.emulator as CosmosEmulator);
    frontend = new FrontendSimulator({ database: cosmosClient.database(databaseId), notificationBaseUrl: stack.receiver.url });
    const tenant = randomUUID();
    for (const lease of split) {
      let sub = randomUUID();
      while (!rangeContains(lease.range, effectivePartitionKey(sub))) sub = randomUUID();
      await frontend.registerSubscription(sub, tenant);
      opsByLease.set(lease.leaseToken, await frontend.createCluster(sub, 'rg', uniqueName('slow')));
    }
  });

  afterAll(async () => {
    for (const i of instances) {
      if (i.process.child.exitCode === null && i.process.child.signalCode === null) {
        i.process.child.kill('SIGTERM');
        await i.process.exited;
      }
      await i.advertised.close();
    }
    cosmosClient?.dispose();
    await stack?.close();
  });

  /** An operation whose range the instance owns now (by the leases). */
  async function opOwnedBy(name: string): Promise<{ op: WrittenOperation; lease: LeaseJson }> {
    const lease = (await leases()).find((l) => l.owner === name && opsByLease.has(l.leaseToken));
    if (!lease) throw new Error(`${name} owns no range`);
    return { op: opsByLease.get(lease.leaseToken) as WrittenOperation, lease };
  }

  it('explain of an operation held by each instance answers from its owner, at the address the owner advertised', async () => {
    for (const name of ['opstream-a', 'opstream-b']) {
      const { op, lease } = await opOwnedBy(name);
      const owner = instance(name);
      expect(lease.opsUrl).toBe(owner.advertised.url);
      expect(lease.opsHost).toBe(host);
      const result = await explainUntil(op.operationId, waitingOnCs(name));
      // The runbook's pattern of this line holds too.
      expect(firstLine(result)).toMatch(diagnosisPattern(runbookRow(runbook, 'waiting on Clusters Service'), name));
      expect(result.stdout).toMatch(new RegExp(`\\nowner +${escape(name)} at ${escape(owner.advertised.url)}\\n`));
      expect(result.stdout).toMatch(new RegExp(`\\nfeed range +lease ${escape(lease.leaseToken)}; owner ${escape(name)}; `));
      const report = await explainJson(op.operationId);
      expect(report.lease).toMatchObject({ leaseToken: lease.leaseToken, owner: name, expired: false, opsUrl: owner.advertised.url });
      expect(report.owner).toMatchObject({ instance: name, url: owner.advertised.url });
      expect(report.owner?.answeredBy).toBeUndefined();
      expect(report.owner?.error).toBeUndefined();
      expect(report.owner?.state).toMatchObject({ instance: name, operationId: op.operationId });
    }
  });

  it("the runbook's action for a wait on Clusters Service: `operations nudge <id>` is taken by the owner, which looks now", async () => {
    const row = runbookRow(runbook, 'waiting on Clusters Service');
    const { op } = await opOwnedBy('opstream-a');
    await explainUntil(op.operationId, waitingOnCs('opstream-a'));
    const before = await explainJson(op.operationId);
    expect(before.owner?.state).toMatchObject({ state: 'parked', reason: 'clusters-service' });
    const dueBefore = Date.parse(before.owner?.state?.dueAt as string);
    expect(dueBefore - Date.now()).toBeGreaterThan(60_000);
    const sent = Date.now();
    // Off a terminal the command needs --yes (docs/explain.md: "--yes in scripts").
    const args = [...runbookCommand(row, 'opstream operations nudge', { '<id>': op.operationId }), '--yes', '--json'];
    const nudged = await runCli(args, env);
    expect(nudged.stderr).toBe('');
    expect(nudged.code).toBe(0);
    expect(JSON.parse(nudged.stdout)).toMatchObject({ operationId: op.operationId, dryRun: false, instance: 'opstream-a', nudged: true });
    // The owner looked at Clusters Service now, not ten minutes later: it saw the cluster installing, and parked it again.
    let last: ExplainReport | undefined;
    await waitFor(
      async () => {
        last = await explainJson(op.operationId);
        const s = last.owner?.state;
        return (
          s?.state === 'parked' &&
          Date.parse(s.clustersService?.lastCheckAt ?? '') >= sent - 1000 &&
          s.clustersService?.state === 'installing'
        );
      },
      {
        timeoutMs: 30_000,
        intervalMs: 250,
        describe: () => `opstream-a to have checked Clusters Service after the nudge: ${JSON.stringify(last?.owner)}`,
      },
    );
    expect(last?.diagnosis).toMatch(waitingOnCs('opstream-a'));
  });

  it("an owner whose address cannot be reached from here is named with the port-forward to run; the runbook's --owner-url gets its own answer", async () => {
    const row = runbookRow(runbook, 'owned by opstream-N');
    const a = instance('opstream-a');
    const { op } = await opOwnedBy('opstream-a');
    a.advertised.cut();
    const forward = await startLoopbackForward(a.bound);
    try {
      const unknown = await explainUntil(op.operationId, /^owned by opstream-a /);
      const line = firstLine(unknown);
      const port = String(a.advertised.port);
      expect(line).toMatch(
        new RegExp(
          `^owned by opstream-a \\(lease renewed \\d+ s ago\\); not known what it does, as it could not be asked from here ` +
            `\\(its ops server at ${escape(a.advertised.url)} did not answer \\(\\S+\\)\\), which says nothing about its health; ` +
            `ask opstream-a itself: reach port ${port} of its host ${escape(host)} ` +
            `\\(on Kubernetes: kubectl port-forward pod/${escape(host)} ${port}\\) and pass --owner-url http://127\\.0\\.0\\.1:${port}$`,
        ),
      );
      expect(line).toMatch(diagnosisPattern(row, 'opstream-a'));
      // The runbook's port-forward is the one the line names (in the runbook's namespace).
      const named = /kubectl port-forward (pod\/\S+) (\d+)\)/.exec(line) as RegExpExecArray;
      const kubectl = runbookCommand(row, 'kubectl', { 'pod/opstream-N': named[1], '9464': named[2] });
      expect(kubectl.filter((w, i, all) => w !== '-n' && all[i - 1] !== '-n')).toEqual(['kubectl', 'port-forward', named[1], named[2]]);
      // Here the port-forward is `forward`: a local port reaching the owner's ops server. Then the runbook's --owner-url.
      const ownerUrl = runbookCommand(row, '--owner-url', { 'http://127.0.0.1:9464': forward.url });
      expect(ownerUrl).toEqual(['--owner-url', forward.url]);
      const answered = await explainUntil(op.operationId, waitingOnCs('opstream-a'), ownerUrl);
      expect(answered.stdout).toMatch(new RegExp(`\\nowner +opstream-a at ${escape(forward.url)}\\n`));
      const report = await explainJson(op.operationId, ownerUrl);
      expect(report.owner).toMatchObject({ instance: 'opstream-a', url: forward.url, state: { instance: 'opstream-a', state: 'parked' } });
      // The same port-forward for an operation of the other instance: opstream-a answers, and its answer is not taken for the owner's.
      const { op: other } = await opOwnedBy('opstream-b');
      const wrong = await explainUntil(other.operationId, /^owned by opstream-b /, ownerUrl);
      expect(firstLine(wrong)).toMatch(
        /^owned by opstream-b \(lease renewed \d+ s ago\); not known what it does: opstream-a answered instead, and its answer is not used; ask opstream-b itself: /,
      );
      expect(firstLine(wrong)).toMatch(diagnosisPattern(row, 'opstream-b'));
    } finally {
      await forward.close();
      a.advertised.resume();
    }
    await explainUntil(op.operationId, waitingOnCs('opstream-a'));
  });

  it("the runbook's `leases release <lease>` for the lease explain names: the other instance takes the range and explain answers from it", async () => {
    const row = runbookRow(runbook, 'opstream-N owns range');
    const { op } = await opOwnedBy('opstream-a');
    await explainUntil(op.operationId, waitingOnCs('opstream-a'));
    const lease = (await explainJson(op.operationId)).lease?.leaseToken as string;
    const args = [...runbookCommand(row, 'opstream leases release', { '<lease>': lease }), '--yes', '--json'];
    const released = await runCli(args, env);
    expect(released.stderr).toBe('');
    expect(released.code).toBe(0);
    expect(JSON.parse(released.stdout)).toMatchObject({ leaseToken: lease, owner: 'opstream-a', newOwner: 'opstream-b', handedOver: true });
    // The next owner relists the range: it holds the operation and answers for it.
    const answered = await explainUntil(op.operationId, waitingOnCs('opstream-b'));
    expect(answered.stdout).toMatch(new RegExp(`\\nowner +opstream-b at ${escape(instance('opstream-b').advertised.url)}\\n`));
    await balanced(instances);
  });

  it('an owner killed with SIGKILL inside its lease: explain says it could not be asked and names it (exit 0); nudge exits 69 saying the same', async () => {
    const b = instance('opstream-b');
    const { op, lease } = await opOwnedBy('opstream-b');
    await explainUntil(op.operationId, waitingOnCs('opstream-b'));
    await kill(b);
    // Its address goes with it, as a pod's IP does.
    await b.advertised.close();
    const port = String(b.advertised.port);
    const hint =
      `ask opstream-b itself: reach port ${port} of its host ${escape(host)} ` +
      `\\(on Kubernetes: kubectl port-forward pod/${escape(host)} ${port}\\) and pass --owner-url http://127\\.0\\.0\\.1:${port}`;
    const result = await runCli(['explain', op.operationId], env);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(firstLine(result)).toMatch(
      new RegExp(
        `^owned by opstream-b \\(lease renewed \\d+ s ago\\); not known what it does, as it could not be asked from here ` +
          `\\(its ops server at ${escape(b.advertised.url)} did not answer \\(ECONNREFUSED\\)\\), which says nothing about its health; ${hint}$`,
      ),
    );
    expect(firstLine(result)).toMatch(diagnosisPattern(runbookRow(runbook, 'owned by opstream-N'), 'opstream-b'));
    const report = await explainJson(op.operationId);
    expect(report.lease).toMatchObject({ leaseToken: lease.leaseToken, owner: 'opstream-b', expired: false, opsUrl: b.advertised.url });
    expect(report.owner).toMatchObject({ instance: 'opstream-b', url: b.advertised.url });
    expect(report.owner?.state).toBeUndefined();

    // The runbook's nudge for it: the owner cannot be reached (69), and the line says how to reach it.
    const nudge = [
      ...runbookCommand(runbookRow(runbook, 'waiting on Clusters Service'), 'opstream operations nudge', { '<id>': op.operationId }),
      '--yes',
    ];
    const refused = await runCli(nudge, env);
    expect(refused.code).toBe(69);
    expect(refused.stderr).toMatch(
      new RegExp(
        `^opstream: cannot reach opstream-b, which holds operation ${op.operationId}: its ops server at ${escape(b.advertised.url)} did not answer \\(ECONNREFUSED\\); ${hint}\\n$`,
      ),
    );

    // The runbook's --owner-url on the port the line names: nothing answers there either, and explain says so again.
    const ownerUrl = runbookCommand(runbookRow(runbook, 'owned by opstream-N'), '--owner-url', {
      'http://127.0.0.1:9464': `http://127.0.0.1:${port}`,
    });
    const again = await runCli(['explain', op.operationId, ...ownerUrl], env);
    expect(again.code).toBe(0);
    expect(firstLine(again)).toMatch(
      new RegExp(
        `^owned by opstream-b \\(lease renewed \\d+ s ago\\); not known what it does, as it could not be asked from here \\(its ops server at http://127\\.0\\.0\\.1:${port} did not answer \\(ECONNREFUSED\\)\\)`,
      ),
    );
    // All of it within the lease: no other instance has taken the range yet.
    expect((await leaseOfToken(lease.leaseToken)).owner).toBe('opstream-b');
  });
});
