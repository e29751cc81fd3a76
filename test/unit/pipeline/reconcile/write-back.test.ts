import type { Operation, Resource, Stored } from '../../../../src/domain/types';
import type { TransitionChange } from '../../../../src/pipeline/reconcile/write-back';
import { CS_PREFIX, ProcessorWorld, clusterArmId, clusterResource, operation, subscription } from '../../../helpers/processor-kit';

/**
 * The write-back's short-cut: when the handling's Operation and Resource already say what a change
 * would write (a follow's look that finds CS as before), it takes no subscription lock and reads and
 * writes nothing. Anything the copies show to be a change still goes through the lock.
 */
const ARM_ID = clusterArmId();

function world(op: Partial<Operation>, resource: Parameters<typeof clusterResource>[0]): ProcessorWorld {
  return new ProcessorWorld().seed(
    subscription(),
    clusterResource({ provisioningState: 'Provisioning', internalId: `${CS_PREFIX}/clusters/cs1`, ...resource }),
    operation({ request: 'Create', externalId: ARM_ID, status: 'Provisioning', internalId: `${CS_PREFIX}/clusters/cs1`, ...op }),
  );
}

async function writeBack(w: ProcessorWorld, change: TransitionChange): Promise<{ written: boolean; locks: number }> {
  const op = w.operation() as Stored<Operation>;
  const resource = w.resource(ARM_ID) as Stored<Resource>;
  const result = await w.kit().writeBack(op, change, resource);
  return { written: result.written, locks: w.locks.taken.length };
}

describe('writeBack of a change the copies already hold', () => {
  it('takes no lock and changes nothing when status and Resource already say it', async () => {
    const w = world({}, {});
    const before = { op: w.operation()?._etag, resource: w.resource(ARM_ID)?._etag };
    expect(await writeBack(w, { status: 'Provisioning', error: null })).toEqual({ written: false, locks: 0 });
    expect({ op: w.operation()?._etag, resource: w.resource(ARM_ID)?._etag }).toEqual(before);
  });

  it('takes no lock for a superseded-style write that leaves the Resource alone', async () => {
    const w = world({}, { activeOperationId: 'op-2' });
    expect(await writeBack(w, { status: 'Provisioning', skipResource: true })).toEqual({ written: false, locks: 0 });
  });

  const stillWritten: Array<[string, Partial<Operation>, Parameters<typeof clusterResource>[0], TransitionChange]> = [
    [
      'an error on the Operation to clear',
      { error: { code: 'InternalServerError', message: 'earlier' } },
      {},
      { status: 'Provisioning', error: null },
    ],
    ['an error to record', {}, {}, { status: 'Provisioning', error: { code: 'Conflict', message: 'now' } }],
    ['a Resource behind the Operation (a crash between the two writes)', {}, { provisioningState: 'Accepted' }, { status: 'Provisioning' }],
    ['a Resource that is another operation’s', {}, { activeOperationId: 'op-2' }, { status: 'Provisioning' }],
    ['a href to record', {}, {}, { status: 'Provisioning', internalId: `${CS_PREFIX}/clusters/cs2` }],
    ['a new status', { status: 'Accepted' }, {}, { status: 'Provisioning' }],
    ['a terminal status (it carries the notification claim)', {}, {}, { status: 'Succeeded', error: null }],
  ];

  it.each(stillWritten)('goes through the lock for %s', async (_name, op, resource, change) => {
    const w = world(op, resource);
    expect((await writeBack(w, change)).locks).toBe(1);
  });

  it('clears an error on the Operation through the lock', async () => {
    const w = world({ error: { code: 'InternalServerError', message: 'earlier' } }, {});
    expect(await writeBack(w, { status: 'Provisioning', error: null })).toEqual({ written: true, locks: 1 });
    expect(w.operation()?.error).toBeUndefined();
  });
});
