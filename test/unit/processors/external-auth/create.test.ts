import { ClustersServiceServerError } from '../../../../src/clusters-service';
import { TerminalError } from '../../../../src/domain/errors';
import type { ExternalAuthResource } from '../../../../src/domain/types';
import {
  FIRST_CHECK_MS,
  FOLLOW,
  LeaseMoved,
  ProcessorWorld,
  SETTINGS,
  clusterArmId,
  csCluster,
  csClusterHref,
  csExternalAuthHref,
  externalAuthArmId,
  externalAuthResource,
  operation,
  processorTestbed,
} from '../../../helpers/processor-kit';
import {
  createFailed,
  deleteTakesOver,
  itHandlesEach,
  notDispatched,
  type Expected,
  type ScenarioRow,
} from '../../../helpers/processor-scenarios';

/**
 * external-auth-create (processors/external-auth/create.ts): a Create `op-1` (Accepted) of external
 * auth `EA1` of cluster `c1`, whose Resource records CS id `cs1`. Its CS id is the lower-cased ARM
 * name (`ea1`), so a create whose answer was lost is found again by name (409 → read → adopt).
 */
const ARM_ID = externalAuthArmId('EA1');
const CLUSTER_HREF = csClusterHref();
const EA_HREF = csExternalAuthHref();

interface Row extends ScenarioRow {
  readonly parent?: 'without CS id' | 'absent';
  readonly resource?: Partial<ExternalAuthResource> | 'cluster document';
  /** CS state of cluster `cs1` (default ready); `absent`: CS does not know it. */
  readonly cluster?: string;
  /** An external auth `ea1` CS already has (state). */
  readonly externalAuth?: string;
  readonly expect: Expected & { readonly inCs?: readonly string[] };
}

function given(row: Omit<Row, keyof ScenarioRow>): ProcessorWorld {
  const held = row.externalAuth ? [{ id: 'ea1', state: row.externalAuth, spec: { issuer: { url: 'https://x', audiences: ['a'] } } }] : [];
  const w = processorTestbed({
    kind: 'external auth',
    name: 'EA1',
    request: 'Create',
    ...(row.resource === 'cluster document' ? { documentKind: 'cluster' } : { resource: row.resource }),
    parent: row.parent === 'absent' ? null : { internalId: row.parent ? '' : CLUSTER_HREF },
    cs: row.cluster === 'absent' ? [] : [csCluster('cs1', row.cluster ?? 'ready', { externalAuths: held })],
  });
  const bad = badArmId(row);
  if (bad) w.seed(operation({ request: 'Create', externalId: bad }));
  return w;
}

/** The ARM id a row's Resource document names instead of its own, if it does (the Create is then on that one). */
const badArmId = (row: Omit<Row, keyof ScenarioRow>): string | undefined =>
  (row.resource !== 'cluster document' && row.resource?.resourceId) || undefined;

const posted = ['createExternalAuth cs1/ea1'];
const dispatched: Pick<Expected, 'op' | 'resource'> = {
  op: { status: 'Provisioning', internalId: EA_HREF },
  resource: { internalId: EA_HREF, provisioningState: 'Provisioning', activeOperationId: 'op-1' },
};

const rows: Row[] = [
  {
    name: 'POSTs under the parent’s CS id with the lower-cased ARM name as id, records the href on the Resource, then the Operation',
    expect: { outcome: { again: FIRST_CHECK_MS }, ...dispatched, calls: posted, inCs: ['ea1'] },
  },
  {
    name: 'a Resource that already has its CS id: copied to the Operation, no call',
    resource: { internalId: EA_HREF },
    externalAuth: 'installing',
    expect: { outcome: { again: 0 }, op: dispatched.op, calls: [] },
  },
  {
    name: 'waits while its cluster has no CS id yet',
    parent: 'without CS id',
    expect: { outcome: { again: SETTINGS.waitDelayMs }, ...notDispatched, calls: [], inCs: [] },
  },
  {
    name: 'waits while its cluster has no document',
    parent: 'absent',
    expect: { outcome: { again: SETTINGS.waitDelayMs }, ...notDispatched, calls: [], inCs: [] },
  },
  ...(['timeout', 'connection-lost', 'lost-answer'] as const).map((fault): Row => ({
    name: `a POST that ended without an answer (${fault}) looks again soon`,
    faults: [['createExternalAuth', fault]],
    expect: { outcome: { again: FOLLOW.initialDelayMs }, ...notDispatched, calls: posted, inCs: fault === 'lost-answer' ? ['ea1'] : [] },
  })),
  {
    name: 'adopts the external auth an earlier attempt created (409, then found by name): still one',
    externalAuth: 'installing',
    expect: { outcome: { again: FIRST_CHECK_MS }, ...dispatched, calls: [...posted, 'getExternalAuth cs1/ea1'], inCs: ['ea1'] },
  },
  {
    name: 'waits while CS refuses it for a cluster being deleted (409, none by that name)',
    cluster: 'uninstalling',
    expect: { outcome: { again: SETTINGS.waitDelayMs }, ...notDispatched, calls: [...posted, 'getExternalAuth cs1/ea1'], inCs: [] },
  },
  {
    name: 'a 409 whose lookup fails is left to the queue’s retry',
    externalAuth: 'ready',
    faults: [['getExternalAuth', '5xx']],
    expect: { outcome: { throws: ClustersServiceServerError }, ...notDispatched, calls: [...posted, 'getExternalAuth cs1/ea1'] },
  },
  {
    name: 'a permanent refusal (400) fails with CS’s message',
    faults: [['createExternalAuth', '400']],
    expect: { outcome: { notify: true }, ...createFailed('InvalidRequestContent', /CS says no \(400\)/), calls: posted },
  },
  {
    name: 'a cluster CS does not know (404) fails NotFound',
    cluster: 'absent',
    expect: { outcome: { notify: true }, ...createFailed('NotFound', /Cluster 'cs1' not found/), calls: posted },
  },
  {
    name: 'a name CS cannot take as id fails with a message naming it, no call',
    resource: { resourceId: externalAuthArmId('bad_name'), id: externalAuthResource({ name: 'bad_name' }).id },
    expect: {
      outcome: { notify: true },
      op: { status: 'Failed', error: { code: 'InvalidRequestContent', message: /"bad_name"/ } },
      calls: [],
    },
  },
  {
    name: 'superseded by a Delete before the POST: no CS call',
    meanwhile: { afterRead: deleteTakesOver(ARM_ID) },
    expect: {
      outcome: { again: 0 },
      op: notDispatched.op,
      resource: { activeOperationId: 'op-delete', internalId: '' },
      calls: [],
      inCs: [],
    },
  },
  {
    name: 'fenced: no CS call',
    meanwhile: { afterRead: (w) => w.fence() },
    expect: { outcome: { throws: LeaseMoved }, ...notDispatched, calls: [], inCs: [] },
  },
  {
    name: 'a Resource document that is not an external auth is a terminal error',
    resource: 'cluster document',
    expect: { outcome: { throws: TerminalError }, op: notDispatched.op, calls: [] },
  },
];

/** What CS holds afterwards, when the row says; the parent cluster's Resource, if any, still Succeeded. */
function afterwards(w: ProcessorWorld, row: Row): void {
  if (row.expect.inCs) expect([...(w.cs.cluster('cs1')?.externalAuths.keys() ?? [])]).toEqual(row.expect.inCs);
  expect(w.resource(clusterArmId())?.provisioningState ?? 'Succeeded').toBe('Succeeded');
}

describe('external auth create', () => {
  itHandlesEach(rows, { given, processor: 'external-auth-create', armId: (row) => badArmId(row) ?? ARM_ID, then: afterwards });

  it('sends issuer, clients and claim in Clusters Service’s shape', async () => {
    const w = given({});
    w.changeResource(ARM_ID, {
      properties: {
        issuer: { url: 'https://issuer', audiences: ['a1', 'a2'], ca: 'PEM' },
        clients: [
          { component: { name: 'cli', authClientNamespace: 'openshift-console' }, clientId: 'c1', type: 'public', extraScopes: ['email'] },
        ],
        claim: {
          mappings: { username: { claim: 'sub', prefix: 'x:', prefixPolicy: 'Prefix' }, groups: { claim: 'groups' } },
          validationRules: [{ type: 'RequiredClaim', requiredClaim: { claim: 'tid', requiredValue: 't1' } }],
        },
      },
    } as Partial<ExternalAuthResource>);
    await w.handle();
    expect(w.cs.externalAuth('cs1', 'ea1')?.spec).toEqual({
      issuer: { url: 'https://issuer', audiences: ['a1', 'a2'], ca: 'PEM' },
      clients: [{ component: { name: 'cli', namespace: 'openshift-console' }, id: 'c1', type: 'public', extra_scopes: ['email'] }],
      claim: {
        mappings: { username: { claim: 'sub', prefix: 'x:', prefix_policy: 'Prefix' }, groups: { claim: 'groups' } },
        validation_rules: [{ claim: 'tid', required_value: 't1' }],
      },
    });
  });
});
