import { check, isValid, MAX_NESTING_DEPTH } from '../../../src/schemas/validator';
import { operationExample } from '../../fixtures/aro-hcp-documents';

/** An ARM error whose `details` nest `levels` times (two JSON levels each: object and array). */
function nestedError(levels: number): Record<string, unknown> {
  let error: Record<string, unknown> = { code: 'Inner', message: 'm' };
  for (let i = 0; i < levels; i++) error = { code: 'Outer', message: 'm', details: [error] };
  return error;
}

function nested(depth: number): unknown {
  let v: unknown = 'x';
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
}

describe('validation refuses what nests deeper than Cosmos allows, before ajv recurses', () => {
  it('a recursive schema (ARM error details) nested 3,700 times is invalid, not a stack overflow', () => {
    const doc = operationExample({ status: 'Failed', error: nestedError(3_700) });
    delete doc.notificationUri;
    const result = check('operation', doc);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.issues).toEqual([{ pointer: '/error', field: 'error', message: `nests deeper than ${MAX_NESTING_DEPTH} levels` }]);
    expect(result.error.message).toBe(`invalid operation "${String(doc.id)}": error nests deeper than 128 levels`);
    expect(isValid('operation', doc)).toBe(false);
  });

  it('a value nested 3,700 levels where a string belongs (externalId) names that field', () => {
    const result = check('operation', { ...operationExample(), externalId: nested(3_700) });
    expect(!result.ok && result.error.pointer).toBe('/externalId');
  });

  it('nesting within the limit is left to the schema', () => {
    const doc = JSON.parse(
      JSON.stringify(operationExample({ status: 'Failed', error: nestedError(3), notificationUri: undefined })),
    ) as unknown;
    expect(check('operation', doc).ok).toBe(true);
  });
});
