import { check } from '../../../src/schemas/validator';
import { CLUSTER_ARM_ID, operationExample, SUBSCRIPTION_ID } from '../../fixtures/aro-hcp-documents';

/**
 * Every field of an Operation that opstream copies into a header, an event, a span attribute or a log
 * line is bounded by the schema (or, for free text such as `error.message`, cut where it is copied):
 * a document outside the bounds is refused naming the field, and the pipeline dead-letters it.
 */
function refusal(overrides: Record<string, unknown>): { field: string; message: string } | undefined {
  const result = check('operation', operationExample(overrides));
  return result.ok ? undefined : { field: result.error.field, message: result.error.issues[0].message };
}

describe('Operation fields copied out of the document are bounded by the schema', () => {
  describe.each(['correlationRequestId', 'clientRequestId'])('%s: printable ASCII, at most 256 characters, as ARM sends it', (field) => {
    it.each([
      ['a GUID', '4f1a9c2e-6b7d-4e8f-9a0b-1c2d3e4f5a6b'],
      ['256 printable characters', `${' !~azAZ09'.repeat(28)}abcd`],
      ['empty (the same as absent)', ''],
    ])('%s is accepted', (_what, value) => {
      expect(value.length).toBeLessThanOrEqual(256);
      expect(refusal({ [field]: value })).toBeUndefined();
    });

    it.each([
      ['CR/LF (would split the header)', 'abc\r\nx-injected: 1'],
      ['a tab', 'a\tb'],
      ['NUL', 'a\u0000b'],
      ['DEL', 'a\u007fb'],
      ['a character above 0xFF (not a ByteString)', 'corr-\u2603'],
      ['a Latin-1 character (not ASCII)', 'caf\u00e9'],
      ['257 characters', 'a'.repeat(257)],
      ['300 KB', 'a'.repeat(300_000)],
    ])('%s is refused, naming the field', (_what, value) => {
      expect(refusal({ [field]: value })).toMatchObject({ field });
    });
  });

  it.each([
    ['externalId', `${CLUSTER_ARM_ID.slice(0, CLUSTER_ARM_ID.lastIndexOf('/') + 1)}${'c'.repeat(256)}`],
    [
      'operationId',
      `/subscriptions/${SUBSCRIPTION_ID}/providers/Microsoft.RedHatOpenShift/locations/${'l'.repeat(500)}/hcpOperationStatuses/x`,
    ],
    ['internalId', `/api/aro_hcp/v1alpha1/clusters/${'a'.repeat(300)}`],
    ['startTime', `2024-03-13T15:40:35.${'1'.repeat(100)}Z`],
    ['lastTransitionTime', `2024-03-13T15:40:35.${'1'.repeat(100)}Z`],
    ['notificationUri', `https://management.azure.com/notify/${'n'.repeat(2048)}`],
  ])('%s beyond its bound is refused, naming the field', (field, value) => {
    expect(refusal({ [field]: value })).toMatchObject({ field, message: expect.stringMatching(/must NOT have more than \d+ characters/) });
  });

  it('the ARM ids, the CS href and the timestamps of a real document are well within their bounds', () => {
    expect(
      refusal({
        internalId: '/api/aro_hcp/v1alpha1/clusters/2ab3cd4ef5gh6ij7kl8mn9op0qr1st2u/node_pools/np-1',
        startTime: '2024-03-13T15:40:35.123456789+05:30',
      }),
    ).toBeUndefined();
  });
});
