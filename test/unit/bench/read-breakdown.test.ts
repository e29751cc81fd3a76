import { CallLog } from '../../../bench/harness/call-log';
import type { OperationOutcome, OperationTiming } from '../../../bench/harness/op-timing';
import { readBreakdown } from '../../../bench/harness/read-breakdown';
import type { ApiCallRecord } from '@opstream/clusters-service-simulator';
import type { WrittenOperation } from '@opstream/frontend-simulator';

const SUB = '00000000-0000-0000-0000-000000000001';
const armId = (name: string): string =>
  `/subscriptions/${SUB}/resourceGroups/rg/providers/Microsoft.RedHatOpenShift/hcpOpenShiftClusters/${name}`;
const azure = (name: string): Record<string, string> => ({ subscription_id: SUB, resource_group_name: 'rg', resource_name: name });

function call(endpoint: string, path: string, at: number, extra: { search?: string; body?: unknown } = {}): ApiCallRecord {
  const query = new URLSearchParams(extra.search === undefined ? {} : { search: extra.search });
  return { endpoint, path, query, body: extra.body, status: 200, receivedAt: at, headers: {} };
}

function op(name: string, writtenAt: number): WrittenOperation {
  return {
    operationId: `op-${name}`,
    partitionKey: SUB,
    externalId: armId(name),
    resourceDocId: name,
    request: 'Create',
    writtenAt,
    correlationRequestId: '',
    clientRequestId: '',
  };
}

describe('bench: where the CS calls of each step come from', () => {
  it('splits a shared status read between the running operations it listed, and puts each call in its bucket', () => {
    const log = new CallLog();
    const searchByName = (name: string): string =>
      `azure.subscription_id = '${SUB}' and azure.resource_group_name = 'rg' and azure.resource_name = '${name}'`;
    log.record(call('GET /clusters', '/clusters', 10, { search: searchByName('a') }));
    log.record(call('POST /clusters', '/clusters', 20, { body: { id: 'ida', azure: azure('a') } }));
    log.record(call('POST /clusters', '/clusters', 25, { body: { id: 'idb', azure: azure('b') } }));
    // One shared read while both clusters install, one after both are done.
    log.record(call('GET /clusters', '/clusters', 500, { search: "id in ('ida', 'idb')" }));
    log.record(call('GET /clusters', '/clusters', 2_000, { search: "id in ('ida', 'idb')" }));
    expect(log.calls[3]?.keys).toEqual([`${SUB}/rg/a`, `${SUB}/rg/b`]);

    const written = [
      { op: op('a', 0), step: 'createCluster' },
      { op: op('b', 5), step: 'createCluster' },
    ];
    const outcomes: OperationOutcome[] = written.map((w) => ({ op: w.op, status: 'Succeeded', terminalAt: 2_100 }));
    const timings: OperationTiming[] = [
      { csCalls: 0, reactionMs: 10, completionLagMs: 100, endToEndMs: 2_100, startedAt: 20, csDoneAt: 1_500 },
      { csCalls: 0, reactionMs: 20, completionLagMs: 100, endToEndMs: 2_095, startedAt: 25, csDoneAt: 1_600 },
    ];
    const b = readBreakdown(log, written, outcomes, timings).createCluster;
    expect(b).toEqual({
      operations: 2,
      mutation: 1,
      // Only `a` searched by identity before its POST.
      'dispatch search': 0.5,
      'read while CS works': 0.5,
      'read after CS is done': 0.5,
    });
  });
});
