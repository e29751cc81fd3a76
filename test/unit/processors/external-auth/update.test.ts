import { ClustersServiceServerError } from '../../../../src/clusters-service';
import type { ExternalAuthResource } from '../../../../src/domain/types';
import type { ScriptedExternalAuth } from '../../../helpers/scripted-clusters-service';
import {
  FIRST_CHECK_MS,
  SETTINGS,
  csCluster,
  csExternalAuthHref,
  externalAuthArmId,
  processorTestbed,
} from '../../../helpers/processor-kit';
import { expectHandled, handleWith, type Expected, type ScenarioRow } from '../../../helpers/processor-scenarios';

/**
 * external-auth-update (processors/external-auth/update.ts): an Update `op-1` (Accepted) of `ea1`
 * whose Resource asks for a second audience; CS holds the external auth as the Create sent it.
 * The dispatch reads it and PATCHes only what differs; nothing differing sends nothing.
 */
const ARM_ID = externalAuthArmId();
const EA_HREF = csExternalAuthHref();
const AS_CREATED: ScriptedExternalAuth['spec'] = {
  issuer: { url: 'https://login.example.com/tenant/v2.0', audiences: ['app-1'] },
  clients: [{ component: { name: 'console', namespace: 'openshift-console' }, id: 'app-1', type: 'confidential' }],
  claim: { mappings: { username: { claim: 'email' } } },
};
const WANTED: Partial<ExternalAuthResource['properties']> = {
  issuer: { url: 'https://login.example.com/tenant/v2.0', audiences: ['app-1', 'app-2'] },
};

interface Row extends ScenarioRow {
  readonly properties?: Partial<ExternalAuthResource['properties']>;
  /** CS state of `ea1` (default ready); `absent`: 404. */
  readonly state?: string;
  /** What CS holds, when not as created. */
  readonly spec?: ScriptedExternalAuth['spec'];
  readonly internalId?: string;
  readonly expect: Expected & { readonly patched?: unknown };
}

const readAndPatch = ['observeExternalAuth cs1/ea1', 'updateExternalAuth cs1/ea1'];
const rows: Row[] = [
  {
    name: 'PATCHes only the issuer, the one field that differs, then Updating',
    properties: WANTED,
    expect: {
      outcome: { again: FIRST_CHECK_MS },
      op: { status: 'Updating' },
      resource: { provisioningState: 'Updating' },
      calls: readAndPatch,
      patched: { issuer: WANTED.issuer },
    },
  },
  {
    name: 'nothing differs: no PATCH, CS ready ends it Succeeded',
    expect: { outcome: { notify: true }, op: { status: 'Succeeded' }, calls: ['observeExternalAuth cs1/ea1'] },
  },
  {
    name: 'repeated after a crash between the PATCH and the write: nothing left to send, CS updating → Updating',
    properties: WANTED,
    state: 'updating',
    spec: { ...AS_CREATED, issuer: WANTED.issuer as ScriptedExternalAuth['spec']['issuer'] },
    expect: { outcome: { againWithin: [1, 10_000] }, op: { status: 'Updating' }, calls: ['observeExternalAuth cs1/ea1'] },
  },
  {
    name: 'waits while the external auth has no CS id yet',
    internalId: '',
    expect: { outcome: { again: SETTINGS.waitDelayMs }, op: { status: 'Accepted' }, calls: [] },
  },
  {
    name: 'CS is deleting it (409): waits',
    properties: WANTED,
    state: 'uninstalling',
    expect: { outcome: { again: SETTINGS.waitDelayMs }, op: { status: 'Accepted' }, calls: readAndPatch },
  },
  {
    name: 'a permanent refusal (400) fails with CS’s message',
    properties: WANTED,
    faults: [['updateExternalAuth', '400']],
    expect: {
      outcome: { notify: true },
      op: { status: 'Failed', error: { code: 'InvalidRequestContent', message: /CS says no/ } },
      calls: readAndPatch,
    },
  },
  {
    name: 'a 5xx on the PATCH is left to the queue’s retry',
    properties: WANTED,
    faults: [['updateExternalAuth', '5xx']],
    expect: { outcome: { throws: ClustersServiceServerError }, op: { status: 'Accepted' }, calls: readAndPatch },
  },
];

describe('external auth update', () => {
  it.each(rows)('$name', async (row) => {
    const internalId = row.internalId ?? EA_HREF;
    const held = row.state === 'absent' ? [] : [{ id: 'ea1', state: row.state ?? 'ready', spec: row.spec ?? AS_CREATED }];
    const w = processorTestbed({
      kind: 'external auth',
      request: 'Update',
      op: { internalId },
      resource: { internalId, provisioningState: 'Accepted', ...(row.properties ? { properties: row.properties } : {}) },
      cs: [csCluster('cs1', 'ready', { externalAuths: held })],
    });
    expectHandled(w, await handleWith(w, row), 'external-auth-update', ARM_ID, row.expect);
    if (row.expect.patched) expect(w.cs.externalAuth('cs1', 'ea1')?.patched).toEqual(row.expect.patched);
  });
});
