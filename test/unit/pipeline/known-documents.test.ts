import { resourceDocumentId } from '../../../src/domain/ids';
import type { Operation, Resource, Stored } from '../../../src/domain/types';
import { KnownDocuments } from '../../../src/pipeline/known-documents';
import { clusterArmId, clusterResource, operation } from '../../helpers/processor-kit';

const ARM_ID = clusterArmId();
const stored = <T extends object>(doc: T, etag: string): Stored<T> => ({ ...doc, _etag: etag, _ts: 1 }) as Stored<T>;
const op = (etag: string, id = 'op-1'): Stored<Operation> => stored(operation({ id, request: 'Create', externalId: ARM_ID }), etag);
const resource = (etag: string): Stored<Resource> => stored(clusterResource(), etag);

describe('KnownDocuments', () => {
  it('keeps the version read or written last, and forgets a document found gone', () => {
    const known = new KnownDocuments();
    known.sawOperation('op-1', op('"1"'));
    known.sawOperation('op-1', op('"2"'));
    expect(known.operation('op-1')?._etag).toBe('"2"');
    known.sawOperation('op-1', undefined);
    expect(known.operation('op-1')).toBeUndefined();
  });

  it('trusts an Operation the change feed brought only when nothing was known of it and this instance never wrote it', () => {
    const known = new KnownDocuments();
    known.brought(op('"1"'), false);
    expect(known.operation('op-1')?._etag).toBe('"1"');

    const behindOwnWrites = new KnownDocuments();
    behindOwnWrites.brought(op('"1"'), true);
    expect(behindOwnWrites.operation('op-1')).toBeUndefined();
  });

  it('drops what it knew when another version is brought, and keeps it when the same one is', () => {
    const known = new KnownDocuments();
    known.sawOperation('op-1', op('"2"'));
    known.brought(op('"2"'), true);
    expect(known.operation('op-1')?._etag).toBe('"2"');
    known.brought(op('"1"'), true);
    expect(known.operation('op-1')).toBeUndefined();
  });

  it('drops the Resource of any Operation brought: the frontend writes the two together', () => {
    const known = new KnownDocuments();
    known.sawResource(resourceDocumentId(ARM_ID), resource('"r1"'));
    expect(known.resourceOf(ARM_ID)?._etag).toBe('"r1"');
    known.brought(op('"9"', 'op-2'), false);
    expect(known.resourceOf(ARM_ID)).toBeUndefined();
  });

  it('forgets an operation, and with its resource id its Resource', () => {
    const known = new KnownDocuments();
    known.sawOperation('op-1', op('"1"'));
    known.sawResource(resourceDocumentId(ARM_ID), resource('"r1"'));
    known.forget('op-1');
    expect(known.operation('op-1')).toBeUndefined();
    expect(known.resourceOf(ARM_ID)).toBeDefined();
    known.forget('op-1', ARM_ID);
    expect(known.resourceOf(ARM_ID)).toBeUndefined();
  });

  it('holds at most its capacity, dropping the least recently used', () => {
    const known = new KnownDocuments(2);
    known.sawOperation('a', op('"a"', 'a'));
    known.sawOperation('b', op('"b"', 'b'));
    expect(known.operation('a')).toBeDefined(); // now the most recently used
    known.sawOperation('c', op('"c"', 'c'));
    expect(known.operation('b')).toBeUndefined();
    expect(known.operation('a')).toBeDefined();
    expect(known.operation('c')).toBeDefined();
  });
});
