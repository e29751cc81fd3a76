import { OwnWrites } from '../../../../src/pipeline/own-writes';

describe('OwnWrites', () => {
  it('recognises the echo of a write by id and etag, and only the latest one', () => {
    const own = new OwnWrites();
    own.record({ id: 'op1', _etag: '"1"' });
    expect(own.isOwn({ id: 'op1', _etag: '"1"' })).toBe(true);
    expect(own.isOwn({ id: 'op1', _etag: '"2"' })).toBe(false); // someone else wrote after us
    own.record({ id: 'op1', _etag: '"3"' });
    expect(own.isOwn({ id: 'op1', _etag: '"1"' })).toBe(false);
    expect(own.isOwn({ id: 'op1', _etag: '"3"' })).toBe(true);
    expect(own.isOwn({ id: 'op2' })).toBe(false);
  });

  it('forgets the oldest entries past its capacity', () => {
    const own = new OwnWrites(2);
    own.record({ id: 'a', _etag: '1' });
    own.record({ id: 'b', _etag: '1' });
    own.record({ id: 'c', _etag: '1' });
    expect(own.isOwn({ id: 'a', _etag: '1' })).toBe(false);
    expect(own.isOwn({ id: 'c', _etag: '1' })).toBe(true);
  });
});
