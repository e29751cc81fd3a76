import { ACTIVE_AGE_BUCKETS, createMetrics } from '../../../src/ops/metrics';
import { activeOperationsDetail } from '../../../src/app/wiring/summary';
import type { ActiveOperation } from '../../../src/pipeline/operation-pipeline';

/**
 * The operations an instance holds, in /metrics as bounded series (the oldest age per kind and
 * status, counts per age bucket per request) whatever their number, and one by one in the ops API.
 */
const NOW = Date.parse('2026-12-01T12:00:00Z');
const CLUSTERS = 'Microsoft.RedHatOpenShift/hcpOpenShiftClusters';

function op(id: string, ageSeconds: number, request = 'Create', status = 'Provisioning', resourceType = CLUSTERS): ActiveOperation {
  return { operationId: id, resourceType, request, status, startTimeMs: NOW - ageSeconds * 1000 };
}

async function series(active: ActiveOperation[]): Promise<Map<string, Array<{ labels: Record<string, string | number>; value: number }>>> {
  const metrics = createMetrics({ defaultMetrics: false, activeOperations: () => active, now: () => NOW });
  const out = new Map<string, Array<{ labels: Record<string, string | number>; value: number }>>();
  for (const m of await metrics.registry.getMetricsAsJSON())
    out.set(m.name, (m as unknown as { values: Array<{ labels: Record<string, string | number>; value: number }> }).values);
  return out;
}

describe('active operations in /metrics', () => {
  it('exports the oldest age per kind and status, and cumulative counts per age bucket per request, with no operation id', async () => {
    const all = await series([op('a', 30), op('b', 1000), op('c', 4000, 'Delete', 'Deleting'), op('d', 200, 'Create', 'Accepted')]);
    expect(all.has('opstream_active_operation_start_time_seconds')).toBe(false);
    expect(all.get('opstream_active_operation_oldest_age_seconds')).toEqual(
      expect.arrayContaining([
        { labels: { resource_type: CLUSTERS, request: 'Create', status: 'Provisioning' }, value: 1000 },
        { labels: { resource_type: CLUSTERS, request: 'Create', status: 'Accepted' }, value: 200 },
        { labels: { resource_type: CLUSTERS, request: 'Delete', status: 'Deleting' }, value: 4000 },
      ]),
    );
    expect(all.get('opstream_active_operation_oldest_age_seconds')).toHaveLength(3);
    const counts = (request: string): Record<string, number> =>
      Object.fromEntries(
        (all.get('opstream_active_operations') ?? [])
          .filter((s) => s.labels.request === request)
          .map((s) => [String(s.labels.le), s.value]),
      );
    // Create: ages 30, 200, 1000 s.
    expect(counts('Create')).toEqual({ '60': 1, '300': 2, '900': 2, '1800': 3, '3600': 3, '10800': 3, '43200': 3, '+Inf': 3 });
    expect(counts('Delete')).toEqual({ '60': 0, '300': 0, '900': 0, '1800': 0, '3600': 0, '10800': 1, '43200': 1, '+Inf': 1 });
    for (const values of all.values()) for (const s of values) expect(s.labels).not.toHaveProperty('operation_id');
  });

  it('keeps the same series for 2,000 operations of one kind as for 2 (bounded, no churn as operations come and go)', async () => {
    const many = Array.from({ length: 2000 }, (_, i) => op(`op-${i}`, i));
    const few = [op('x', 5), op('y', 1999)];
    const count = (s: Awaited<ReturnType<typeof series>>): number =>
      (s.get('opstream_active_operation_oldest_age_seconds')?.length ?? 0) + (s.get('opstream_active_operations')?.length ?? 0);
    const [a, b] = [await series(many), await series(few)];
    expect(count(a)).toBe(1 + ACTIVE_AGE_BUCKETS.length + 1);
    expect(count(b)).toBe(count(a));
    expect(a.get('opstream_active_operation_oldest_age_seconds')?.[0]?.value).toBe(1999);
  });

  it('drops a kind when nothing of it is held any more', async () => {
    let active = [op('a', 10), op('b', 10, 'Delete', 'Deleting')];
    const metrics = createMetrics({ defaultMetrics: false, activeOperations: () => active, now: () => NOW });
    expect(await metrics.registry.getSingleMetricAsString('opstream_active_operation_oldest_age_seconds')).toContain('request="Delete"');
    active = [op('a', 10)];
    const text = await metrics.registry.getSingleMetricAsString('opstream_active_operation_oldest_age_seconds');
    expect(text).not.toContain('request="Delete"');
    expect(await metrics.registry.getSingleMetricAsString('opstream_active_operations')).not.toContain('request="Delete"');
  });

  it('lists each operation in the ops API instead, oldest first, at most 100 of them with the total count', () => {
    const detail = activeOperationsDetail(
      [op('young', 5), op('old', 500, 'Update', 'Updating'), ...Array.from({ length: 150 }, (_, i) => op(`m-${i}`, 100))],
      NOW,
    );
    expect(detail.count).toBe(152);
    expect(detail.oldest).toHaveLength(100);
    expect(detail.oldest[0]).toEqual({
      operationId: 'old',
      resourceType: CLUSTERS,
      request: 'Update',
      status: 'Updating',
      startTime: new Date(NOW - 500_000).toISOString(),
      ageSeconds: 500,
    });
    expect(detail.oldest.some((o) => o.operationId === 'young')).toBe(false);
  });
});
