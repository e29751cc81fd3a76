import { ClustersServiceServerError } from '../../../../src/clusters-service';
import { parseCsHref } from '../../../../src/domain/ids';
import {
  PARTITION_KEY,
  ProcessorWorld,
  T0,
  clusterArmId,
  csCluster,
  csClusterHref,
  operation,
  processorTestbed,
} from '../../../helpers/processor-kit';
import { ProcessCrash } from '../../../helpers/scripted-clusters-service';

/**
 * credential-request and credentials-revoke (processors/credential/), decided afresh on every look.
 * Every scenario has cluster `c1`, at rest, recorded in CS as `cs1` (ready); a RequestCredential or
 * RevokeCredentials `op-1` on it, written as ARO-HCP's frontend writes them (the Resource untouched).
 */
const CLUSTER = clusterArmId();
const CS1 = csClusterHref();

function world(
  request: 'RequestCredential' | 'RevokeCredentials',
  fields: { status?: 'Accepted' | 'Deleting'; internalId?: string } = {},
): ProcessorWorld {
  return processorTestbed({
    kind: 'cluster',
    request,
    // The Resource at rest, as a credential operation leaves it.
    resource: { internalId: CS1, activeOperationId: '', provisioningState: 'Succeeded' },
    op: { internalId: fields.internalId ?? (request === 'RevokeCredentials' ? CS1 : ''), status: fields.status ?? 'Accepted' },
    cs: [csCluster('cs1', 'ready')],
  });
}

async function lookUntilTerminal(w: ProcessorWorld, looks = 8, between?: (look: number) => void): Promise<string[]> {
  const notes: string[] = [];
  for (let i = 0; i < looks && !['Succeeded', 'Failed', 'Canceled'].includes(w.operation()?.status ?? ''); i++) {
    between?.(i);
    const h = await w.handle();
    if (!('outcome' in h)) throw h.error;
    notes.push(h.outcome.kind === 'again' ? (h.outcome.note ?? '') : h.outcome.kind);
    if (h.outcome.kind === 'again') w.clock.advance(Math.max(h.outcome.afterMs, 1));
  }
  return notes;
}

describe('credential request', () => {
  it('requests one credential under the id it recorded first, is Provisioning while CS issues it, Succeeded once issued', async () => {
    const w = world('RequestCredential');
    const first = await w.handle();
    expect(first).toMatchObject({ processor: 'credential-request', outcome: { kind: 'again' } });
    const href = w.operation()?.internalId ?? '';
    const { clusterId, credentialId } = parseCsHref(href);
    expect([clusterId, w.operation()?.status]).toEqual(['cs1', 'Provisioning']);
    expect(w.cs.credentialsOf('cs1')).toEqual([{ id: credentialId, status: 'created' }]);
    expect(w.cs.calls).toEqual([`requestBreakGlassCredential cs1/${credentialId}`]);
    // The Resource is not this operation's: it is left as it was.
    expect(w.resource(CLUSTER)).toMatchObject({ provisioningState: 'Succeeded', activeOperationId: '' });

    await lookUntilTerminal(w, 2);
    expect(w.operation()?.status).toBe('Provisioning');
    w.cs.setCredentialState('cs1', credentialId ?? '', 'issued');
    await lookUntilTerminal(w);
    expect(w.operation()).toMatchObject({ status: 'Succeeded', internalId: href });
    expect(w.cs.credentialsOf('cs1')).toHaveLength(1);
    expect(w.resource(CLUSTER)).toMatchObject({ provisioningState: 'Succeeded' });
  });

  it.each<[string, string, RegExp]>([
    ['failed', 'failed', /^Failed to provision cluster credential$/],
    ['revoked before it was issued', 'revoked', /revoked before it was issued/],
    ['expired before it was issued', 'expired', /expired before it was issued/],
  ])('ends Failed when the credential %s', async (_name, state, message) => {
    const w = world('RequestCredential');
    await w.handle();
    const { credentialId = '' } = parseCsHref(w.operation()?.internalId ?? '');
    w.cs.setCredentialState('cs1', credentialId, state);
    await lookUntilTerminal(w);
    expect(w.operation()).toMatchObject({ status: 'Failed', error: { code: 'InternalServerError', message } });
  });

  it.each<[string, (w: ProcessorWorld) => void]>([
    ['the POST’s answer is lost after CS took it', (w) => w.cs.fail('requestBreakGlassCredential', 'lost-answer')],
    ['the process dies once CS took the POST', (w) => w.cs.fail('requestBreakGlassCredential', 'crash')],
    ['the POST times out before CS takes it', (w) => w.cs.fail('requestBreakGlassCredential', 'timeout')],
    [
      'the process dies right after recording the chosen id',
      (w) =>
        w.operationDocs.afterWrite(
          (_, doc) => doc.id === 'op-1' && String(doc.internalId).includes('break_glass'),
          () => {
            throw new ProcessCrash('the process died');
          },
        ),
    ],
    ['the lease moves during the POST', (w) => w.cs.during('requestBreakGlassCredential', () => w.fence())],
  ])('leaves exactly one credential when %s', async (_name, interrupt) => {
    const w = world('RequestCredential');
    interrupt(w);
    await w.handle();
    // Whatever this instance kept is lost with it: another one takes over.
    w.restart();
    await lookUntilTerminal(w, 4);
    const credentials = w.cs.credentialsOf('cs1');
    expect(credentials).toHaveLength(1);
    expect(w.operation()).toMatchObject({
      status: 'Provisioning',
      internalId: `/api/clusters_mgmt/v1/clusters/cs1/break_glass_credentials/${credentials[0]?.id}`,
    });
  });

  it('waits while a revocation written before it runs, then requests its credential', async () => {
    const w = world('RequestCredential');
    w.seed(
      operation({
        id: 'revoke-1',
        request: 'RevokeCredentials',
        externalId: CLUSTER,
        internalId: CS1,
        status: 'Deleting',
        startTime: new Date(T0 - 120_000).toISOString(),
      }),
    );
    const h = await w.handle();
    expect(h).toMatchObject({ outcome: { kind: 'again', note: 'waiting for revocation revoke-1 to end' } });
    expect(w.cs.calls).toEqual([]);
    w.operationDocs.change(PARTITION_KEY, 'revoke-1', (doc) => Object.assign(doc, { status: 'Succeeded' }));
    await w.handle();
    expect(w.cs.credentialsOf('cs1')).toHaveLength(1);
  });

  it('waits while the cluster has no Clusters Service id', async () => {
    const w = world('RequestCredential');
    w.changeResource(CLUSTER, { internalId: '' });
    expect(await w.handle()).toMatchObject({ outcome: { kind: 'again', note: 'the cluster has no Clusters Service id yet' } });
    expect(w.cs.calls).toEqual([]);
  });

  it('a refusal of Clusters Service (400) fails it with CS’s reason', async () => {
    const w = world('RequestCredential');
    w.cs.setState('cs1', 'installing');
    await w.handle();
    expect(w.operation()).toMatchObject({ status: 'Failed', error: { code: 'InvalidRequestContent', message: /not ready/ } });
  });
});

describe('credentials revocation', () => {
  it('revokes, is Deleting while CS revokes, Succeeded once none is active', async () => {
    const w = world('RevokeCredentials');
    await w.cs.requestBreakGlassCredential('cs1', { id: 'old1' });
    await w.cs.requestBreakGlassCredential('cs1', { id: 'old2' });
    w.cs.setCredentialState('cs1', 'old2', 'issued');
    const first = await w.handle();
    expect(first).toMatchObject({ processor: 'credentials-revoke', outcome: { kind: 'again', note: 'CS revoking' } });
    expect(w.operation()?.status).toBe('Deleting');
    // The look right after the DELETE listed them, and watches the first for its revocation event.
    expect(w.cs.calls).toEqual([
      'requestBreakGlassCredential cs1/old1',
      'requestBreakGlassCredential cs1/old2',
      'revokeBreakGlassCredentials cs1',
      'listBreakGlassCredentials cs1',
    ]);
    expect(w.followOf()?.watch).toEqual({
      href: '/api/clusters_mgmt/v1/clusters/cs1/break_glass_credentials/old1',
      wakeOn: ['revoked', 'expired', 'failed', 'deleted'],
    });
    expect(w.cs.credentialsOf('cs1').map((c) => c.status)).toEqual(['awaiting_revocation', 'awaiting_revocation']);
    await lookUntilTerminal(w, 2);
    expect(w.operation()?.status).toBe('Deleting');
    w.cs.finishRevocations();
    await lookUntilTerminal(w);
    expect(w.operation()).toMatchObject({ status: 'Succeeded' });
    expect(w.resource(CLUSTER)).toMatchObject({ provisioningState: 'Succeeded', activeOperationId: '' });
  });

  it('fails when a credential’s revocation failed', async () => {
    const w = world('RevokeCredentials');
    await w.cs.requestBreakGlassCredential('cs1', { id: 'old1' });
    await w.handle();
    w.cs.setCredentialState('cs1', 'old1', 'failed');
    await lookUntilTerminal(w);
    expect(w.operation()).toMatchObject({ status: 'Failed', error: { message: 'Failed to revoke cluster credential' } });
  });

  it('a Deleting revocation (another instance sent the DELETE) only lists: no second DELETE', async () => {
    const w = world('RevokeCredentials', { status: 'Deleting' });
    await lookUntilTerminal(w);
    expect(w.operation()?.status).toBe('Succeeded');
    expect(w.cs.calls.filter((c) => c.startsWith('revokeBreakGlassCredentials'))).toEqual([]);
  });

  it('a cluster CS does not know has nothing to revoke', async () => {
    const w = world('RevokeCredentials');
    w.cs.fail('revokeBreakGlassCredentials', '404');
    await w.handle();
    expect(w.operation()?.status).toBe('Succeeded');
  });

  it('a 5xx is left to the queue’s retry, and nothing is written', async () => {
    const w = world('RevokeCredentials');
    w.cs.fail('revokeBreakGlassCredentials', '5xx');
    const h = await w.handle();
    expect('error' in h && h.error).toBeInstanceOf(ClustersServiceServerError);
    expect(w.operation()?.status).toBe('Accepted');
  });
});

/**
 * With shared reads on (`follow.batchWindowMs` > 0), a RequestCredential's look is a share of its
 * cluster's credential list (`GET …/break_glass_credentials`, which never carries a kubeconfig)
 * instead of a GET of the credential.
 */
describe('credential request with shared reads', () => {
  it('follows its credential through the cluster’s credential list, no GET of it, until issued', async () => {
    const w = world('RequestCredential');
    w.restart({ batchWindowMs: 1 });
    await w.handle();
    const { credentialId } = parseCsHref(w.operation()?.internalId ?? '');
    await lookUntilTerminal(w, 1);
    expect(w.operation()?.status).toBe('Provisioning');
    w.cs.setCredentialState('cs1', credentialId ?? '', 'issued');
    await lookUntilTerminal(w, 2);
    expect(w.operation()?.status).toBe('Succeeded');
    expect(w.cs.calls.filter((c) => !c.startsWith('requestBreakGlassCredential'))).toEqual([
      'listBreakGlassCredentials cs1',
      'listBreakGlassCredentials cs1',
    ]);
  });
});
