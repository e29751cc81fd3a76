import { hostname } from 'os';
import { ConfigError } from './config-error';
import type { OpstreamConfig } from './config-types';
import { SETTINGS } from './settings';

/**
 * Per-replica Service Bus subscriptions. A Clusters Service event or a hint must reach the replica
 * that owns the operation's feed range, which only one replica knows, so every replica reads a
 * subscription of its own. `{hostname}` in a subscription setting becomes this machine's host name:
 * in a Kubernetes StatefulSet the pod's stable name (opstream-0, opstream-1…), for which the
 * subscriptions can be made in advance (deploy/azure/main.bicep).
 */
const HOSTNAME_PLACEHOLDER = '{hostname}';

/** What Service Bus accepts as a subscription name: 1–50 letters, digits, `.`, `-`, `_`, starting and ending with a letter or digit. */
const SUBSCRIPTION_NAME = /^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,48}[A-Za-z0-9])?$/;

type SubscriptionSetting = 'clustersServiceSubscription' | 'hintsSubscription';
const NAMED: readonly SubscriptionSetting[] = ['clustersServiceSubscription', 'hintsSubscription'];

/** Replaces `{hostname}` in the subscription settings and checks each name is one Service Bus accepts. */
export function expandSubscriptionNames(config: OpstreamConfig, host: string = hostname()): void {
  for (const field of NAMED) {
    const template = config.serviceBus[field];
    if (template === undefined) continue;
    const name = template.split(HOSTNAME_PLACEHOLDER).join(host.toLowerCase());
    if (!SUBSCRIPTION_NAME.test(name)) {
      const key = `serviceBus.${field}`;
      const s = SETTINGS.find((x) => x.key === key);
      const from = name === template ? '' : ` (from "${template}" on host "${host}")`;
      throw new ConfigError(
        `setting ${key} ("${name}"${from}) is not a Service Bus subscription name: 1 to 50 letters, digits, ".", "-" or "_", starting and ending with a letter or digit${s ? `; set ${s.env} or pass ${s.flag}` : ''}`,
        key,
      );
    }
    config.serviceBus[field] = name;
  }
}
