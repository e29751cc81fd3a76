import { loadConfig } from '../../../src/config/load-config';
import { ARM_NOTIFICATION_DEFAULTS } from '../../../src/arm/arm-notifier';
import { parseHostSuffixes } from '../../../src/arm/notification-target';

/** The notifications.* settings: their defaults are the notifier's, and a malformed allow-list stops start-up. */
describe('notifications.* settings', () => {
  it('default to the notifier defaults: ARM in the public cloud, Azure Government and Azure China; no loopback; 10 s per attempt; pauses up to a minute; 1 h in all', () => {
    const { notifications } = loadConfig({ env: {} });
    expect(notifications).toEqual({ ...ARM_NOTIFICATION_DEFAULTS });
    expect(parseHostSuffixes(notifications.allowedHostSuffixes)).toEqual([
      'management.azure.com',
      'management.usgovcloudapi.net',
      'management.chinacloudapi.cn',
    ]);
    expect(notifications.concurrency).toBeUndefined(); // a quarter of pipeline.concurrency
  });

  it('take a comma-separated list of host names from the environment', () => {
    const c = loadConfig({
      env: {
        OPSTREAM_NOTIFICATIONS_ALLOWED_HOST_SUFFIXES: 'management.azure.com, arm.contoso.example',
        OPSTREAM_NOTIFICATIONS_ALLOW_LOOPBACK: 'true',
      },
    });
    expect(parseHostSuffixes(c.notifications.allowedHostSuffixes)).toEqual(['management.azure.com', 'arm.contoso.example']);
    expect(c.notifications.allowLoopback).toBe(true);
  });

  it.each([['management.azure.com,,x.example'], ['https://management.azure.com'], ['management.azure.com/notify'], ['*.azure.com'], ['']])(
    'refuse the allow-list %j, naming the setting',
    (value) => {
      expect(() => loadConfig({ env: {}, flags: { 'notifications.allowedHostSuffixes': value } })).toThrow(
        /setting notifications\.allowedHostSuffixes \(flag --notifications-allowed-host-suffixes\)/,
      );
    },
  );
});
