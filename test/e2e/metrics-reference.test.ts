import { readFileSync } from 'fs';
import { join } from 'path';
import { localStartArgs, spawnCli, type CliProcess } from '../helpers/cli';
import { documentedMetrics, exportedFamilies, metricsReferenceMismatches } from '../helpers/metrics-reference';

const OPERATING = readFileSync(join(__dirname, '../../docs/operating.md'), 'utf8');

/**
 * docs/operating.md's metrics table against the `/metrics` of a running instance — `opstream start`
 * with Service Bus, after its demo has run every kind of operation — rather than against the
 * registry one factory builds: families made elsewhere (the permission-denied counter) and label
 * values only traffic produces are checked too.
 */
describe('the metrics reference in docs/operating.md', () => {
  let start: CliProcess;
  let exposition = '';

  beforeAll(async () => {
    start = spawnCli(localStartArgs(['--demo-subscriptions', '1', '--demo-clusters', '1']));
    const opsLine = await start.waitForLine((l) => l.startsWith('ops server'), 60_000, 'the ops server line');
    const opsUrl = /http:\/\/127\.0\.0\.1:\d+/.exec(opsLine)?.[0];
    if (!opsUrl) throw new Error(`no ops URL in "${opsLine}"`);
    await start.waitForLine((l) => l.startsWith('demo finished'), 120_000, 'the demo to finish');
    exposition = await (await fetch(`${opsUrl}/metrics`)).text();
  }, 180_000);

  afterAll(async () => {
    start?.child.kill('SIGINT');
    await start?.exited;
  });

  it('has a row for every family exported, with its type, labels and label values', () => {
    expect(exportedFamilies(exposition).size).toBeGreaterThan(20);
    expect(metricsReferenceMismatches(exposition, OPERATING)).toEqual([]);
  });

  it('documents no family a running instance with Service Bus does not export', () => {
    const exported = exportedFamilies(exposition);
    const notExported = [...documentedMetrics(OPERATING).keys()].filter((name) => !exported.has(name));
    expect(notExported).toEqual([]);
  });
});
