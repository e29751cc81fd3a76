import { hostAllowed } from '../../../src/ops/host-check';

/**
 * Which Host a listener without a token answers. The machine's addresses are injected: nothing here
 * is sent anywhere, least of all to a non-loopback address.
 */
describe('hostAllowed', () => {
  const podAddresses = (): string[] => ['127.0.0.1', '::1', '10.244.1.17', 'fd00:10:244::11', 'fe80::a8bb:ccff:fedd:eeff'];

  it('loopback names and addresses, in any case and with or without a port', () => {
    for (const host of [
      'localhost',
      'LocalHost:9464',
      '127.0.0.1',
      '127.0.0.1:9464',
      '127.9.8.7:1',
      '[::1]',
      '[::1]:9464',
      '127.1',
      '[0:0:0:0:0:0:0:1]:9464',
    ]) {
      expect([host, hostAllowed(host, '127.0.0.1', podAddresses)]).toEqual([host, true]);
    }
  });

  it('refuses other names, however close to loopback they look, and malformed values', () => {
    for (const host of [
      undefined,
      '',
      'attacker.example',
      'attacker.example:9464',
      'localhost.attacker.example',
      '127.0.0.1.attacker.example',
      'attacker.example@127.0.0.1',
      '127.0.0.1/x',
      '127.0.0.1:9464:1',
      '[::1',
      '[::ffff:127.0.0.1]',
      '10.244.1.17:9465', // an address of the machine, but the listener is bound to loopback
    ]) {
      expect([host, hostAllowed(host, '127.0.0.1', podAddresses)]).toEqual([host, false]);
    }
  });

  it("the listener's own configured address, name or IP", () => {
    expect(hostAllowed('10.244.1.17:9465', '10.244.1.17', podAddresses)).toBe(true);
    expect(hostAllowed('ops.internal:9464', 'ops.internal', podAddresses)).toBe(true);
    expect(hostAllowed('OPS.internal', 'ops.internal', podAddresses)).toBe(true);
    expect(hostAllowed('[fd00:10:244::11]:9465', 'fd00:10:244::11', podAddresses)).toBe(true);
    expect(hostAllowed('other.internal', 'ops.internal', podAddresses)).toBe(false);
  });

  it('a wildcard bind (0.0.0.0, ::) answers every address of the machine: kubelet probes and Prometheus send the pod IP', () => {
    for (const bind of ['0.0.0.0', '::', '']) {
      expect(hostAllowed('10.244.1.17:9465', bind, podAddresses)).toBe(true);
      expect(hostAllowed('[fd00:10:244::11]:9465', bind, podAddresses)).toBe(true);
      expect(hostAllowed('127.0.0.1:9465', bind, podAddresses)).toBe(true);
      expect(hostAllowed('10.244.1.18:9465', bind, podAddresses)).toBe(false);
      expect(hostAllowed('opstream-0.opstream-metrics.ns.svc:9465', bind, podAddresses)).toBe(false);
    }
  });

  it('asks for the machine addresses only when neither loopback nor the bind address matched', () => {
    let asked = 0;
    const counting = (): string[] => (asked++, podAddresses());
    hostAllowed('127.0.0.1:9465', '0.0.0.0', counting);
    expect(asked).toBe(0);
    hostAllowed('10.244.1.17:9465', '0.0.0.0', counting);
    expect(asked).toBe(1);
  });
});
