import { startRunningInstance, type RunningInstance } from '../../helpers/running-instance';
import { uniqueName } from '../../helpers/wait-for';

/** `opstream_cosmos_<name>{kind="…"[,status="…"]}` → value, summed over the other labels. */
function byKind(text: string, metric: string): Map<string, number> {
  const out = new Map<string, number>();
  const line = new RegExp(`^${metric}\\{kind="([^"]+)"[^}]*\\} (\\S+)$`);
  for (const l of text.split('\n')) {
    const m = line.exec(l);
    if (m) out.set(m[1], (out.get(m[1]) ?? 0) + Number(m[2]));
  }
  return out;
}

describe('opstream_cosmos_request_units_total', () => {
  let instance: RunningInstance;
  beforeAll(async () => {
    instance = await startRunningInstance();
  });
  afterAll(() => instance?.close());

  it('adds up the request charges Cosmos stated on the answers to a cluster create, by kind of request', async () => {
    const sub = crypto.randomUUID();
    await instance.frontend.registerSubscription(sub, crypto.randomUUID());
    const create = await instance.frontend.createCluster(sub, 'rg', uniqueName('ru'));
    expect(await instance.terminal(create)).toBe('Succeeded');

    const text = await (await fetch(`${instance.opsUrl}/metrics`)).text();
    expect(text).toContain('# TYPE opstream_cosmos_request_units_total counter');
    const units = byKind(text, 'opstream_cosmos_request_units_total');
    const requests = byKind(text, 'opstream_cosmos_requests_total');
    // writes (the emulator charges at least 5.5 RU each), point reads and change-feed pages all cost something
    for (const kind of ['write', 'point-read', 'changefeed']) expect(units.get(kind) ?? 0).toBeGreaterThan(0);
    expect(units.get('write')! / requests.get('write')!).toBeGreaterThan(2);
    // the emulator charges every empty poll (304) exactly 1 RU: the metric carries the answers' own figure
    expect(requests.get('changefeed-304')).toBeGreaterThan(0);
    expect(units.get('changefeed-304')).toBe(requests.get('changefeed-304'));
  });
});
