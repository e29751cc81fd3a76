import type { ReceivedSpan } from '@opstream/otlp-receiver';
import { cosmosBreakdown, operationTrace } from '../../../bench/harness/cosmos-breakdown';

/** A span as the OTLP receiver hands it over, with only what the breakdown reads. */
function span(
  spanId: string,
  name: string,
  parentSpanId: string | undefined,
  attributes: ReceivedSpan['attributes'],
  startTimeMs = 0,
): ReceivedSpan {
  return {
    traceId: 't',
    spanId,
    ...(parentSpanId ? { parentSpanId } : {}),
    name,
    kind: 1,
    startTimeMs,
    endTimeMs: startTimeMs + 1,
    attributes,
    status: { code: 0 },
    links: [],
    events: [],
    resource: {},
    scope: { name: 'opstream' },
  };
}
const cosmos = (container: string, charge: number): ReceivedSpan['attributes'] => ({
  'db.system.name': 'azure.cosmosdb',
  'db.collection.name': container,
  'azure.cosmosdb.operation.request_charge': charge,
});

describe('Cosmos requests by step and purpose (bench/harness/cosmos-breakdown.ts)', () => {
  const spans = [
    span('h1', 'reconcile Create', undefined, { 'opstream.operation.id': 'op-1' }, 0),
    span('r1', 'read docs', 'h1', cosmos('Operations', 1), 1),
    span('w1', 'write-back', 'h1', {}, 2),
    span('l1', 'acquire subscription lock', 'w1', {}, 2),
    span('c1', 'create docs', 'l1', cosmos('Locks', 3), 3),
    span('c2', 'create docs', 'l1', cosmos('Locks', 3), 4),
    span('p1', 'replace docs', 'w1', cosmos('Operations', 14), 5),
    span('h2', 'reconcile Create', undefined, { 'opstream.operation.id': 'op-2' }, 10),
    span('r2', 'read docs', 'h2', cosmos('Operations', 1), 11),
    // Outside any handling (no reconcile ancestor): not counted.
    span('f1', 'read docs', undefined, cosmos('Operations', 1), 12),
    // An operation that is not measured (the warm-up): not counted.
    span('h3', 'reconcile Create', undefined, { 'opstream.operation.id': 'warm-up' }, 13),
    span('r3', 'read docs', 'h3', cosmos('Operations', 1), 14),
  ];
  const stepOf = (id: string): string | undefined => ({ 'op-1': 'createCluster', 'op-2': 'createCluster' })[id];

  it('puts each request under its step, by the spans between the handling and it, per operation', () => {
    const b = cosmosBreakdown(spans, stepOf, { createCluster: 2 });
    expect(b.createCluster).toEqual({
      operations: 2,
      handlingsPerOp: 1,
      requestsPerOp: 2.5,
      requestUnitsPerOp: 11,
      byPurpose: {
        'Operations read docs': { requests: 1, requestUnits: 1 },
        'write-back › acquire subscription lock: Locks create docs': { requests: 1, requestUnits: 3 },
        'write-back: Operations replace docs': { requests: 0.5, requestUnits: 7 },
      },
    });
  });

  it('prints one operation handling by handling, in time order', () => {
    expect(operationTrace(spans, 'op-1')).toEqual([
      '+0 ms reconcile Create',
      '  +1 ms read docs Operations → ',
      '  +2 ms write-back',
      '    +2 ms acquire subscription lock',
      '      +3 ms create docs Locks → ',
      '      +4 ms create docs Locks → ',
      '    +5 ms replace docs Operations → ',
    ]);
  });
});
