import { cosmosRequestKind } from '../../../src/app/cosmos-request-kind';

describe('cosmosRequestKind', () => {
  it.each([
    ['docs', 'read', {}, 200, 'point-read'],
    ['docs', 'read', { 'A-IM': 'Incremental feed' }, 200, 'changefeed'],
    ['docs', 'read', { 'a-im': 'incremental feed' }, 304, 'changefeed-304'],
    ['docs', 'query', {}, 200, 'query'],
    ['docs', 'batch', {}, 200, 'batch'],
    ['docs', 'create', {}, 201, 'write'],
    ['docs', 'upsert', {}, 200, 'write'],
    ['docs', 'replace', {}, 412, 'write'],
    ['docs', 'delete', {}, 204, 'write'],
    ['docs', 'patch', {}, 200, 'write'],
    ['pkranges', 'read', {}, 200, 'pkranges'],
    ['colls', 'read', {}, 200, 'metadata'],
    ['dbs', 'create', {}, 201, 'metadata'],
  ] as const)('%s %s %j (%i) is a %s', (resourceType, operationType, headers, status, kind) => {
    expect(cosmosRequestKind(resourceType, operationType, headers, status)).toBe(kind);
  });

  it('recognises a change-feed read from the SDK feed options when the header is not set yet', () => {
    expect(cosmosRequestKind('docs', 'query', {}, 304, { useLatestVersionFeed: true })).toBe('changefeed-304');
    expect(cosmosRequestKind('docs', 'query', {}, 200, { useIncrementalFeed: true })).toBe('changefeed');
  });
});
