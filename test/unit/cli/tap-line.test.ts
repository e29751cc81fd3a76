import { formatTapLine, shortResource } from '../../../src/cli/tap-line';
import type { Paint } from '../../../src/cli/terminal';

const plain: Paint = (_c, text) => text;
const tagged: Paint = (c, text) => `<${c}>${text}</${c}>`;
const at = new Date(2026, 0, 2, 14, 3, 7, 412).toISOString();
const armId = '/subscriptions/S/resourceGroups/rg/providers/Microsoft.RedHatOpenShift/hcpOpenShiftClusters/c1/nodePools/np';

describe('formatTapLine', () => {
  it('shows a transition as time, stream, previous → new status, request, short resource, operation', () => {
    const line = formatTapLine(
      {
        stream: 'transitions',
        at,
        data: {
          operationId: 'op-1',
          subscriptionId: 's',
          resourceId: armId,
          request: 'Create',
          previousStatus: 'Accepted',
          status: 'Provisioning',
        },
      },
      plain,
    );
    expect(line).toBe('14:03:07.412  transitions    Accepted → Provisioning     Create  hcpOpenShiftClusters/c1/nodePools/np  op op-1');
  });

  it('prints every other field as key=value, errors in red, statuses in their colour', () => {
    const line = formatTapLine(
      { stream: 'dead-letters', at, data: { operationId: 'op-2', subscriptionId: 'sub', reason: 'validation', leaseToken: '-10' } },
      tagged,
    );
    expect(line).toContain('sub sub');
    expect(line).toContain('<red>reason=validation</red>');
    expect(line).toContain('leaseToken=-10');
    expect(formatTapLine({ stream: 'transitions', at, data: { status: 'Failed' } }, tagged)).toContain('<red>Failed');
    expect(formatTapLine({ stream: 'transitions', at, data: { status: 'Succeeded' } }, tagged)).toContain('<green>Succeeded');
  });

  it('prints events of unknown shape without losing their content', () => {
    expect(formatTapLine({ stream: 'leases', at, data: { type: 'changefeed.lease.acquired', leaseToken: '10-20' } }, plain)).toBe(
      '14:03:07.412  leases         type=changefeed.lease.acquired  leaseToken=10-20',
    );
    expect(formatTapLine({ stream: 'changes', at, data: 42 }, plain)).toBe('14:03:07.412  changes        value=42');
  });

  it('shortens ARM ids to what follows the provider namespace', () => {
    expect(shortResource(armId)).toBe('hcpOpenShiftClusters/c1/nodePools/np');
    expect(shortResource('not-an-arm-id')).toBe('not-an-arm-id');
  });
});
