import type { OperationRequest, OperationStatus } from '../../../../src/domain/types';
import { externalAuthDecision } from '../../../../processors/external-auth/states';
import { csCluster, csExternalAuthHref, externalAuthArmId, processorTestbed } from '../../../helpers/processor-kit';
import { expectHandled, type Expected } from '../../../helpers/processor-scenarios';

/**
 * The external auth follow (processors/external-auth/status-follow.ts and states.ts): what each
 * Clusters Service state writes for a dispatched Create (Provisioning) or Update (Updating).
 */
const ARM_ID = externalAuthArmId();
const EA_HREF = csExternalAuthHref();
const read = ['observeExternalAuth cs1/ea1'];

interface Row {
  readonly request: 'Create' | 'Update';
  /** CS state of `ea1`; `absent`: 404. */
  readonly state: string;
  readonly message?: string;
  readonly expect: Expected;
}

const succeeded: Pick<Expected, 'outcome' | 'op' | 'resource'> = {
  outcome: { notify: true },
  op: { status: 'Succeeded', error: null },
  resource: { provisioningState: 'Succeeded', activeOperationId: '' },
};

const rows: Row[] = [
  {
    request: 'Create',
    state: 'installing',
    expect: { outcome: { againWithin: [1, 10_000] }, op: { status: 'Provisioning' }, calls: read },
  },
  { request: 'Create', state: 'ready', expect: { ...succeeded, calls: read } },
  { request: 'Create', state: 'awaiting_secret', expect: { ...succeeded, calls: read } },
  {
    request: 'Create',
    state: 'error',
    message: 'issuer https://x unreachable',
    expect: {
      outcome: { notify: true },
      op: { status: 'Failed', error: { code: 'InternalServerError', message: /issuer https:\/\/x unreachable/ } },
      resource: { provisioningState: 'Failed' },
      calls: read,
    },
  },
  { request: 'Create', state: 'absent', expect: { outcome: { againWithin: [1, 10_000] }, op: { status: 'Provisioning' }, calls: read } },
  { request: 'Create', state: 'bogus', expect: { outcome: { againWithin: [1, 10_000] }, op: { status: 'Provisioning' }, calls: read } },
  { request: 'Update', state: 'updating', expect: { outcome: { againWithin: [1, 10_000] }, op: { status: 'Updating' }, calls: read } },
  { request: 'Update', state: 'ready', expect: { ...succeeded, calls: read } },
  { request: 'Update', state: 'awaiting_secret', expect: { ...succeeded, calls: read } },
];

describe('external auth status follow', () => {
  it.each(rows)('$request follow, CS $state', async (row) => {
    const status: OperationStatus = row.request === 'Create' ? 'Provisioning' : 'Updating';
    const held =
      row.state === 'absent'
        ? []
        : [{ id: 'ea1', state: row.state, message: row.message, spec: { issuer: { url: 'https://x', audiences: ['a'] } } }];
    const w = processorTestbed({
      kind: 'external auth',
      request: row.request,
      op: { status, internalId: EA_HREF },
      resource: { internalId: EA_HREF, provisioningState: status },
      cs: [csCluster('cs1', 'ready', { externalAuths: held })],
    });
    expectHandled(w, await w.handle(), `external-auth-${row.request.toLowerCase()}-follow`, ARM_ID, row.expect);
  });
});

describe('externalAuthDecision', () => {
  const seen = (value: string) => ({
    found: true as const,
    status: { id: 'ea1', href: EA_HREF, issuer: { url: 'u', audiences: [] }, status: { state: { value } } },
  });
  it.each<[OperationRequest, OperationStatus, string, string]>([
    ['Create', 'Accepted', 'installing', 'set Provisioning'],
    ['Create', 'Provisioning', 'updating', 'keep'],
    ['Update', 'Accepted', 'installing', 'keep'],
    ['Update', 'Accepted', 'updating', 'set Updating'],
    ['Delete', 'Deleting', 'error', 'keep'],
    ['Delete', 'Deleting', 'ready', 'keep'],
    ['Create', 'Provisioning', 'uninstalling', 'keep'],
    ['Create', 'Succeeded', 'error', 'keep'],
    ['Update', 'Updating', 'awaiting_secret', 'set Succeeded'],
  ])('%s %s, CS %s → %s', (request, current, state, want) => {
    const d = externalAuthDecision(request, current, seen(state));
    expect(d.kind === 'set' ? `set ${d.status}` : d.kind).toBe(want);
  });

  it('a 404 ends a Delete and says nothing to anything else', () => {
    expect(externalAuthDecision('Delete', 'Deleting', { found: false }).kind).toBe('deleted');
    expect(externalAuthDecision('Create', 'Provisioning', { found: false }).kind).toBe('retry-later');
  });
});
