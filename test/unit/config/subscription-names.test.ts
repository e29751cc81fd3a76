import { ConfigError } from '../../../src/config/config-error';
import { loadConfig } from '../../../src/config/load-config';

const NAMESPACE = { OPSTREAM_SERVICE_BUS_NAMESPACE: 'ns.servicebus.windows.net' };

describe('Service Bus subscription settings per replica', () => {
  it('{hostname} becomes the host name, lower-cased: each StatefulSet pod reads its own subscription', () => {
    const c = loadConfig({
      env: {
        ...NAMESPACE,
        OPSTREAM_SERVICE_BUS_CLUSTERS_SERVICE_SUBSCRIPTION: '{hostname}',
        OPSTREAM_SERVICE_BUS_HINTS_SUBSCRIPTION: 'hints-{hostname}',
      },
      hostname: 'Opstream-1',
    });
    expect(c.serviceBus.clustersServiceSubscription).toBe('opstream-1');
    expect(c.serviceBus.hintsSubscription).toBe('hints-opstream-1');
  });

  it('a name without the placeholder is kept as given, and an unset hints subscription stays unset', () => {
    const c = loadConfig({ env: NAMESPACE, hostname: 'opstream-0' });
    expect(c.serviceBus.clustersServiceSubscription).toBe('opstream');
    expect(c.serviceBus.hintsSubscription).toBeUndefined();
  });

  it.each([
    ['a host name that makes the name too long', '{hostname}', 'x'.repeat(51), /"x{51}" \(from "\{hostname\}" on host "x{51}"\)/],
    ['a character Service Bus refuses', 'opstream/events', 'h', /"opstream\/events"/],
    ['a name ending in a hyphen', 'opstream-', 'h', /"opstream-"/],
  ])('refuses %s, naming the setting, its variable and its flag', (_what, value, host, shown) => {
    let error: unknown;
    try {
      loadConfig({ env: { ...NAMESPACE, OPSTREAM_SERVICE_BUS_CLUSTERS_SERVICE_SUBSCRIPTION: value }, hostname: host });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as ConfigError).message;
    expect(message).toMatch(shown);
    expect(message).toContain('setting serviceBus.clustersServiceSubscription');
    expect(message).toContain('OPSTREAM_SERVICE_BUS_CLUSTERS_SERVICE_SUBSCRIPTION');
    expect(message).toContain('--service-bus-clusters-service-subscription');
  });
});
