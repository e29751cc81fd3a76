import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  createLeaseDocument,
  isExpired,
  isLeaseDocument,
  leaseTimestampMs,
  toWritable,
} from '../../../src/changefeed/lease/lease-document';
import {
  accountHostOf,
  infoMarkerId,
  isLeaseIdOf,
  leaseId,
  leasePrefix,
  leaseTokenOf,
  lockMarkerId,
} from '../../../src/changefeed/lease/lease-ids';

const fixture = JSON.parse(readFileSync(join(__dirname, '../../fixtures/changefeed-dotnet-lease.json'), 'utf8')) as Record<string, unknown>;

describe('lease documents in the .NET schema', () => {
  const prefix = leasePrefix({
    processorName: 'operations',
    accountHost: 'myaccount.documents.azure.com',
    databaseRid: 'rVJzAA==',
    containerRid: 'rVJzAJcSwq0=',
  });

  it('builds the prefix, lease ids and markers in the .NET format', () => {
    expect(prefix).toBe('operationsmyaccount.documents.azure.com_rVJzAA==_rVJzAJcSwq0=');
    expect(leaseTokenOf({ min: '', max: 'FF' })).toBe('-FF');
    expect(leaseId(prefix, '10-20')).toBe(`${prefix}..10-20`);
    expect(infoMarkerId(prefix)).toBe(`${prefix}.info`);
    expect(lockMarkerId(prefix)).toBe(`${prefix}.lock`);
    expect(isLeaseIdOf(prefix, `${prefix}..10-20`)).toBe(true);
    expect(isLeaseIdOf(prefix, `${prefix}.info`)).toBe(false);
    expect(accountHostOf('https://myaccount.documents.azure.com:443/')).toBe('myaccount.documents.azure.com');
  });

  it('matches a lease written by the .NET processor field by field', () => {
    const ours = createLeaseDocument({
      prefix,
      range: { min: '', max: '05C1DFFFFFFFFC' },
      continuationToken: '"42"',
      owner: 'host-a',
      nowMs: Date.parse('2024-05-01T10:11:12.345Z'),
    }) as unknown as Record<string, unknown>;
    const serverFields = new Set(['_rid', '_self', '_etag', '_attachments', '_ts']);
    const theirs = Object.fromEntries(Object.entries(fixture).filter(([k]) => !serverFields.has(k)));
    expect(Object.keys(ours).sort()).toEqual(Object.keys(theirs).sort());
    for (const key of Object.keys(theirs)) {
      if (key === 'timestamp') {
        expect(leaseTimestampMs(ours as never)).toBe(leaseTimestampMs(theirs as never));
      } else {
        expect({ key, value: ours[key] }).toEqual({ key, value: theirs[key] });
      }
    }
    expect(isLeaseDocument(fixture)).toBe(true);
  });

  it('reads .NET timestamps with 7 fractional digits and falls back to _ts', () => {
    expect(leaseTimestampMs({ timestamp: '2024-05-01T10:11:12.3450000Z' })).toBe(Date.parse('2024-05-01T10:11:12.345Z'));
    expect(leaseTimestampMs({ timestamp: '', _ts: 1714558272 })).toBe(1714558272000);
  });

  it('is expired only once timestamp + expiration has passed', () => {
    const lease = { timestamp: new Date(10_000).toISOString() };
    expect(isExpired(lease, 40_000, 30_000)).toBe(false);
    expect(isExpired(lease, 40_001, 30_000)).toBe(true);
  });

  it('strips server fields before a write', () => {
    const written = toWritable({ ...fixture, _etag: '"x"', _ts: 1, _rid: 'r' } as never) as unknown as Record<string, unknown>;
    expect(Object.keys(written).filter((k) => k.startsWith('_'))).toEqual([]);
    expect(written.ContinuationToken).toBe('"42"');
  });

  it('rejects documents that are not EPK leases', () => {
    expect(isLeaseDocument({ id: 'x', LeaseToken: '0', PartitionId: '0' })).toBe(false);
    expect(isLeaseDocument({ id: 'x.info' })).toBe(false);
  });
});
