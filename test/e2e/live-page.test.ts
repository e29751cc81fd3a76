import { existsSync, mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { startRunningInstance, type RunningInstance } from '../helpers/running-instance';
import { uniqueName, waitFor } from '../helpers/wait-for';

/**
 * The live page at `/` in headless Chromium (Debian's package, driven by playwright-core): while the
 * frontend simulator drives operations, the page shows them by status, the transitions as they
 * happen, throughput and latency, the leases, the latest ARM notification attempts and the latest
 * dead letters, without a reload.
 * CI installs the browser with .ci/setup-browser; without it this test fails and says so.
 */
const CHROMIUM = '/usr/bin/chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

describe('the live page in Chromium', () => {
  let instance: RunningInstance;
  let context: BrowserContext;
  let page: Page;
  const profile = mkdtempSync(join(tmpdir(), 'opstream-chromium-'));

  beforeAll(async () => {
    if (!existsSync(CHROMIUM))
      throw new Error(
        `${CHROMIUM} is missing: run .ci/setup-browser (it installs Debian's chromium with apt-get); CI runs it before the tests`,
      );
    instance = await startRunningInstance();
    context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: ARGS });
    page = await context.newPage();
  });

  afterAll(async () => {
    await context?.close();
    await instance?.close();
    rmSync(profile, { recursive: true, force: true });
  });

  /** Text of every row of a table body, cells joined by " | ". */
  function rowsOf(table: string): Promise<string[]> {
    return page.$$eval(`#${table} tbody tr`, (rows) =>
      rows.map((r) => [...r.querySelectorAll('td')].map((td) => (td.textContent ?? '').trim()).join(' | ')),
    );
  }

  /** Polls what the page shows until `check` holds (the page updates itself; nothing is reloaded). */
  function until(what: string, check: () => Promise<boolean>): Promise<true> {
    return waitFor(async () => (await check()) || undefined, {
      timeoutMs: 15_000,
      intervalMs: 100,
      describe: () => `the page to show ${what}`,
    });
  }

  const updated = async (): Promise<boolean> => (await page.textContent('#conn'))?.startsWith('updated') ?? false;

  it('shows operations by status, transitions, throughput, latency, leases, ARM notifications and dead letters as they happen', async () => {
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));
    await page.goto(instance.opsUrl);
    expect(await page.title()).toBe('opstream — live');
    await until('a first summary', updated);
    expect(await page.textContent('#instance')).toBe(instance.app.instanceName);
    expect(await rowsOf('transitions')).toEqual([]);

    const sub = crypto.randomUUID();
    await instance.frontend.registerSubscription(sub, crypto.randomUUID());
    const names = [uniqueName('live-a'), uniqueName('live-b'), uniqueName('live-c')];
    // ARM refuses the third one's notification twice (503) before it takes it.
    const ops = await Promise.all(
      names.map((n, i) =>
        instance.frontend.createCluster(
          sub,
          'rg',
          n,
          {},
          {
            notificationUri: (id) => {
              if (i === 2) instance.receiver.failNext(id, 2);
              return `${instance.receiver.url}/notify/${id}`;
            },
          },
        ),
      ),
    );
    await Promise.all(ops.map((op) => instance.terminal(op)));

    // Statuses: the three operations end up counted as Succeeded.
    await until('3 Succeeded', async () => (await rowsOf('statuses')).includes('Succeeded | 3'));
    // Transitions arrive over SSE, newest first: each operation's last one is to Succeeded (whether the
    // status follow also saw Provisioning depends on how fast the simulated cluster got ready).
    await until('a transition to Succeeded of each operation', async () => {
      const rows = await rowsOf('transitions');
      return ops.every((op) => rows.some((r) => r.includes(' | Succeeded | ') && r.endsWith(op.externalId)));
    });
    const transitions = await rowsOf('transitions');
    for (const op of ops) {
      const mine = transitions.filter((t) => t.endsWith(` | ${op.externalId}`)).map((t) => t.split(' | ')[1]);
      expect(mine[0]).toBe('Succeeded');
      expect(['Succeeded', 'Provisioning']).toEqual(expect.arrayContaining(mine));
    }
    expect(transitions[0]).toMatch(/^\d\d:\d\d:\d\d\.\d{3} \| Succeeded \| \/subscriptions\//);
    // Throughput over the last 10 s and reaction latency from the pipeline.
    await until('transitions per second above 0', async () => Number(await page.textContent('#tps')) > 0);
    const latency = await rowsOf('latency');
    expect(latency[0]).toMatch(/^reaction p50 \| \d+\.\d ms$/);
    // Leases: the instance holds all four.
    const leases = await rowsOf('leases');
    expect(leases).toHaveLength(4);
    for (const lease of leases) expect(lease).toMatch(new RegExp(`^\\S+ \\| ${instance.app.instanceName} \\| \\d+$`));

    // ARM notifications: each delivery with its attempt and ARM's answer, the refused attempts before it, and the counts.
    await until(
      '3 notifications delivered',
      async () => (await page.textContent('#notifycounts')) === '3 delivered · 2 failed attempts · 0 given up',
    );
    const notifications = await rowsOf('notifications');
    const of = (op: (typeof ops)[number]): string[] =>
      notifications.filter((r) => r.endsWith(` | ${op.externalId}`)).map((r) => r.split(' | ').slice(1, 4).join(' | '));
    expect(of(ops[0])).toEqual(['delivered | attempt 1 | HTTP 200']);
    expect(of(ops[1])).toEqual(['delivered | attempt 1 | HTTP 200']);
    expect(of(ops[2])).toEqual(['delivered | attempt 3 | HTTP 200', 'failed | attempt 2 | HTTP 503', 'failed | attempt 1 | HTTP 503']);

    // A bad document shows up among the latest dead letters.
    const badId = crypto.randomUUID();
    await instance.frontend.writeRawOperation({ id: badId, partitionKey: sub, status: 'Nonsense' });
    await until('the dead letter', async () => (await rowsOf('deadletters')).some((r) => r.includes(badId)));
    expect((await rowsOf('deadletters'))[0]).toMatch(new RegExp(`^\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z \\| ${badId} \\| validation$`));
    expect(errors).toEqual([]);
  });

  it('asks for the token when the ops server has one, sends it only in the Authorization header, never in a URL', async () => {
    const token = 'live-page-token-0123456789';
    const guarded = await startRunningInstance({ settings: { 'ops.token': token } });
    const urls: string[] = [];
    const onRequest = (req: { url(): string }): void => void urls.push(req.url());
    page.on('request', onRequest);
    try {
      const served = await page.goto(guarded.opsUrl);
      expect(served?.status()).toBe(200);
      await until('the token form', async () => page.isVisible('#login'));
      expect(await page.textContent('#conn')).toBe('token needed');

      await page.fill('#login input[name=token]', 'wrong-token-wrong-token');
      await page.press('#login input[name=token]', 'Enter');
      await until('the wrong token refused', async () => (await page.textContent('#login-why')) === 'the ops server refused this token');

      await page.fill('#login input[name=token]', token);
      await page.press('#login input[name=token]', 'Enter');
      await until('a first summary', updated);
      expect(await page.isVisible('#login')).toBe(false);
      const sub = crypto.randomUUID();
      await guarded.frontend.registerSubscription(sub, crypto.randomUUID());
      const op = await guarded.frontend.createCluster(sub, 'rg', uniqueName('guarded'));
      await guarded.terminal(op);
      await until('the transition', async () => (await rowsOf('transitions')).some((r) => r.endsWith(op.externalId)));

      // The token is in no URL the page loaded or shows, nor in its history.
      expect(urls.length).toBeGreaterThan(2);
      expect(urls.filter((u) => u.includes(token) || u.includes('token='))).toEqual([]);
      expect(page.url()).toBe(`${guarded.opsUrl}/`);
      // A URL that carries it is refused, saying where the token goes.
      const refused = await page.goto(`${guarded.opsUrl}/?token=${token}`);
      expect(refused?.status()).toBe(400);
      expect(await page.textContent('body')).toContain('Authorization: Bearer');
    } finally {
      page.off('request', onRequest);
      await guarded.close();
    }
  });
});
