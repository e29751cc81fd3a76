import { EntitySettings } from './config';
import { BrokerError } from './errors';

/**
 * An entity's Status as the service applies it: `Disabled` refuses sends and receives, `SendDisabled`
 * sends, `ReceiveDisabled` receives, with `com.microsoft:entity-disabled` (the SDK's MessagingEntityDisabled).
 */
export function assertStatusAllows(settings: EntitySettings, what: 'send' | 'receive', path: string): void {
  const refused =
    settings.status === 'Disabled' ||
    (what === 'send' && settings.status === 'SendDisabled') ||
    (what === 'receive' && settings.status === 'ReceiveDisabled');
  if (refused)
    throw new BrokerError(
      'entityDisabled',
      `Messaging entity 'sb://opstream-emulator/${path}' is currently disabled (Status ${settings.status}). For more information please see https://aka.ms/ServiceBusExceptions .`,
    );
}
