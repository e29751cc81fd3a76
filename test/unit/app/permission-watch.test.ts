import { Writable } from 'node:stream';
import { Registry } from 'prom-client';
import { PermissionWatch } from '../../../src/app/permission-watch';
import { createLogger } from '../../../src/logging/logger';
import { createPermissionDeniedCounter } from '../../../src/ops/metrics';
import { ManualClock } from '../../../src/util/clock';

const OID = '7fc0ec90-c509-4aed-ba59-109f442ded14';
const refusedMessage = `Request blocked by Auth acct : Request is blocked because principal [${OID}] does not have required RBAC permissions to perform action [Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers/items/replace] on resource [/dbs/opstream/colls/Leases]. Learn more: https://aka.ms/cosmos-native-rbac.`;
const refusal = { container: 'Leases', operation: 'replace', substatus: 5302, message: refusedMessage };

describe('the permission watch', () => {
  function setUp(): { watch: PermissionWatch; clock: ManualClock; registry: Registry; lines: Array<Record<string, unknown>> } {
    const lines: Array<Record<string, unknown>> = [];
    const stream = new Writable({
      write(chunk, _enc, cb) {
        lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
        cb();
      },
    });
    const registry = new Registry();
    const counter = createPermissionDeniedCounter(registry, ['Leases', 'Operations']);
    const clock = new ManualClock(1_000_000);
    const watch = new PermissionWatch({
      clock,
      logger: createLogger({ format: 'json', stream }),
      count: (container) => counter.inc({ container }),
      forgetAfterMs: 60_000,
    });
    return { watch, clock, registry, lines };
  }
  const counted = async (registry: Registry): Promise<string> => registry.getSingleMetricAsString('opstream_permission_denied_total');

  it('counts each refusal by container, logs the first of its kind once naming the role and scope, and makes readiness fail with the reason', async () => {
    const { watch, registry, lines } = setUp();
    expect(watch.readiness()).toEqual({ ok: true, detail: 'no Cosmos DB request refused for want of a data role' });
    expect(await counted(registry)).toContain('opstream_permission_denied_total{container="Leases"} 0');
    watch.observe(403, refusal);
    watch.observe(403, refusal);
    expect(await counted(registry)).toContain('opstream_permission_denied_total{container="Leases"} 2');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 'error', container: 'Leases', operation: 'replace', substatus: 5302, principal: OID });
    expect(lines[0].message).toBe(
      `Cosmos DB refused Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers/items/replace (replace) on container Leases to this identity (HTTP 403, substatus 5302): ` +
        `assign the data role Cosmos DB Built-in Data Contributor (00000000-0000-0000-0000-000000000002) to principal ${OID} at scope "/" (the whole account: the SDK reads its metadata too); ` +
        `deploy/azure/main.bicep assigns it, or az cosmosdb sql role assignment create -g <resource group> -a <account> --scope "/" --principal-id ${OID} --role-definition-id 00000000-0000-0000-0000-000000000002`,
    );
    const check = watch.readiness();
    expect(check.ok).toBe(false);
    expect(check.detail).toMatch(
      /^Cosmos DB refuses this identity replace on Leases \(substatus 5302, 2x\): assign the data role Cosmos DB Built-in Data Contributor .* at scope "\/"/,
    );
  });

  it('ignores other failures: a 403 of the control plane (5300) or a firewall, a 404, a 412, a network error', async () => {
    const { watch, registry, lines } = setUp();
    watch.observe(403, { container: 'Leases', operation: 'create', substatus: 5300 });
    watch.observe(403, { container: 'Leases', operation: 'create' });
    watch.observe(404, { container: 'Leases', operation: 'replace' });
    watch.observe(412, { container: 'Leases', operation: 'replace' });
    watch.observe('error', { container: 'Leases', operation: 'replace' });
    expect(watch.readiness().ok).toBe(true);
    expect(lines).toHaveLength(0);
    expect(await counted(registry)).toContain('opstream_permission_denied_total{container="Leases"} 0');
  });

  it('clears when the same request to the same container succeeds again (the role is back), not when another does', () => {
    const { watch } = setUp();
    watch.observe(403, refusal);
    watch.observe(200, { container: 'Leases', operation: 'query' });
    watch.observe(200, { container: 'Operations', operation: 'replace' });
    expect(watch.readiness().ok).toBe(false);
    watch.observe(200, { container: 'Leases', operation: 'replace' });
    expect(watch.readiness().ok).toBe(true);
  });

  it('forgets a refusal not repeated within forgetAfterMs; a later one is logged again', () => {
    const { watch, clock, lines } = setUp();
    watch.observe(403, refusal);
    clock.advance(60_000);
    expect(watch.readiness().ok).toBe(false);
    clock.advance(1);
    expect(watch.readiness().ok).toBe(true);
    watch.observe(403, { ...refusal, container: '(account)', operation: 'read', substatus: 5301 });
    expect(lines).toHaveLength(2);
    expect(lines[1].message).toMatch(/^Cosmos DB refused .* on the account to this identity \(HTTP 403, substatus 5301\)/);
  });
});
