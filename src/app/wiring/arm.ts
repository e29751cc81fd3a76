import { ArmNotifier } from '../../arm/arm-notifier';
import { parseHostSuffixes } from '../../arm/notification-target';
import type { OpstreamConfig } from '../../config/config-types';
import type { Logger } from '../../logging/logger';
import { version } from '../../util/version';

/** ARM's asynchronous-operation notifications: where they may go, how long one may take, who sends them. */
export function wireArmNotifier(config: OpstreamConfig, { logger, instanceId }: { logger: Logger; instanceId: string }): ArmNotifier {
  if (config.notifications.allowLoopback)
    logger.warn('notifications.allowLoopback is on: ARM notifications may go to loopback, over http too (development only)');
  return new ArmNotifier({
    policy: {
      allowedHostSuffixes: parseHostSuffixes(config.notifications.allowedHostSuffixes),
      allowLoopback: config.notifications.allowLoopback,
    },
    timeoutMs: config.notifications.timeoutMs,
    userAgent: `opstream/${version} (${instanceId})`,
  });
}
