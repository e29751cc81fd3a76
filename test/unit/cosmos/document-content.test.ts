import { sameContent, withoutSystemFields } from '../../../src/cosmos/document-content';
import { checkContainer, CONTAINERS } from '../../../src/cosmos/containers';
import { deadLetterFor } from '../../../src/cosmos/dead-letters-repository';
import { ContainerSetupError, InvalidDocumentError } from '../../../src/cosmos/errors';
import { check, validate } from '../../../src/schemas/validator';
import { operationExample } from '../../fixtures/aro-hcp-documents';

describe('document content', () => {
  it('ignores system fields, key order and undefined members; keeps ttl', () => {
    const stored = {
      id: 'a',
      x: { b: 1, a: [1, { d: 2, c: 3 }] },
      _etag: '"1"',
      _ts: 5,
      _rid: 'r',
      _self: 's',
      _lsn: 3,
      _attachments: 'at',
      ttl: 7,
    };
    expect(withoutSystemFields(stored)).toEqual({ id: 'a', x: stored.x, ttl: 7 });
    expect(sameContent(stored, { ttl: 7, x: { a: [1, { c: 3, d: 2 }], b: 1 }, id: 'a', gone: undefined })).toBe(true);
    expect(sameContent(stored, { id: 'a', x: { b: 1, a: [{ d: 2, c: 3 }, 1] }, ttl: 7 })).toBe(false);
    expect(sameContent(stored, { id: 'a', x: stored.x })).toBe(false);
  });
});

describe('container checks', () => {
  it('accepts the expected definition and warns on another default TTL', () => {
    expect(
      checkContainer('db', CONTAINERS.operations, {
        id: 'Operations',
        partitionKey: { paths: ['/partitionKey'], version: 2 },
        defaultTtl: 604800,
      }),
    ).toEqual([]);
    expect(
      checkContainer('db', CONTAINERS.operations, {
        id: 'Operations',
        partitionKey: { paths: ['/partitionKey'], version: 2 },
        defaultTtl: 3600,
      }),
    ).toEqual([
      'container db/Operations has default TTL 3600, expected 604800 (an ended operation is kept 7 days, as ARM polls it, then removed: ' +
        'off keeps every one forever, shorter loses them early); ' +
        'set it: az cosmosdb sql container update -g <resource group> -a <account> -d db -n Operations --ttl 604800',
    ]);
  });

  it('a wrong partition key is fatal and says to recreate', () => {
    expect(() => checkContainer('db', CONTAINERS.resources, { id: 'Resources', partitionKey: { paths: ['/id'] } })).toThrow(
      'container db/Resources has partition key ["/id"], expected /partitionKey; the partition key cannot be changed: recreate the container with partition key /partitionKey (hash version 2), TTL off',
    );
  });

  it('an Operations container hashed with version 1 is fatal: relisting a feed range would look in the wrong place', () => {
    const v1 = { id: 'Operations', partitionKey: { paths: ['/partitionKey'], version: 1 }, defaultTtl: 604800 };
    expect(() => checkContainer('db', CONTAINERS.operations, v1)).toThrow('uses partition key hash version 1; opstream finds a feed range');
    // The service reads a missing version as 1.
    const unversioned = { id: 'Operations', partitionKey: { paths: ['/partitionKey'] }, defaultTtl: 604800 };
    expect(() => checkContainer('db', CONTAINERS.operations, unversioned)).toThrow('(none given, which Cosmos reads as 1)');
    // Containers whose placement opstream never computes may keep version 1.
    expect(checkContainer('db', CONTAINERS.resources, { id: 'Resources', partitionKey: { paths: ['/partitionKey'], version: 1 } })).toEqual(
      [],
    );
  });

  it('a Locks container without TTL is fatal: dead holders would never be freed', () => {
    expect(() => checkContainer('db', CONTAINERS.locks, { id: 'Locks', partitionKey: { paths: ['/id'] } })).toThrow(ContainerSetupError);
    expect(() => checkContainer('db', CONTAINERS.locks, { id: 'Locks', partitionKey: { paths: ['/id'] } })).toThrow('default TTL 10 s');
  });
});

describe('dead letters', () => {
  it('carry the failing field of an invalid document and a stable id', () => {
    const raw = { ...operationExample({ status: 'Bogus' }), _lsn: 17 } as Record<string, unknown>;
    const result = check('operation', raw);
    if (result.ok) throw new Error('expected invalid');
    const error = new InvalidDocumentError('Operations', result.error, raw, 'pk');
    const a = deadLetterFor(
      { container: 'Operations', document: raw, reason: 'validation', error, leaseToken: '2' },
      Date.parse('2024-03-13T16:00:00Z'),
    );
    expect(validate('deadLetter', a)).toMatchObject({
      partitionKey: raw.partitionKey,
      source: { container: 'Operations', id: raw.id, partitionKey: raw.partitionKey, leaseToken: '2', lsn: 17 },
      reason: 'validation',
      error: { name: 'InvalidDocumentError', path: '/status' },
      deadLetteredAt: '2024-03-13T16:00:00.000Z',
      ttl: 30 * 24 * 3600,
    });
    expect(a.error.message).toContain('status must be one of');
    const again = deadLetterFor({ container: 'Operations', document: raw, reason: 'validation', error, leaseToken: '3' }, Date.now());
    expect(again.id).toBe(a.id);
    // One dead letter per version: another version (another _etag) gets its own.
    expect(
      deadLetterFor({ container: 'Operations', document: { ...raw, _etag: '"other"', _lsn: 18 }, reason: 'validation', error }, 0).id,
    ).not.toBe(a.id);
    expect(a.source).toMatchObject({ etag: raw._etag, sizeBytes: Buffer.byteLength(JSON.stringify(raw)) });
    expect(a.truncated).toBeUndefined();
    expect(a.document).toEqual(raw);
  });

  it('accept anything as the document and any error', () => {
    const d = deadLetterFor(
      { container: 'Operations', document: 'not json object', reason: 'processing', error: 'boom', attempts: 5 },
      0,
      60,
    );
    expect(validate('deadLetter', d)).toMatchObject({
      partitionKey: 'unknown',
      document: { value: 'not json object' },
      error: { name: 'Error', message: 'boom' },
      attempts: 5,
      ttl: 60,
    });
  });
});
