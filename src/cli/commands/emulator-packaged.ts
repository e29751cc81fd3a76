import type { Command } from 'commander';
import { loadDevelopmentModule } from '../development-install';

/**
 * `opstream emulator cosmos` and `opstream emulator service-bus`: the stand-ins' own command lines
 * (their packages' bins run the same ones), loaded only when asked for, so that `opstream run` and
 * the production image load no emulator code. Every argument, `--help` included, goes to the
 * stand-in's command.
 */
function registerPackagedEmulator(
  emulator: Command,
  name: string,
  description: string,
  load: () => Promise<(name: string) => Command>,
): void {
  emulator
    .command(name)
    .description(`${description} (--help lists its flags)`)
    .helpOption(false)
    .allowUnknownOption()
    .allowExcessArguments()
    .argument('[flags...]')
    .action(async (flags: string[]) => {
      const command = await loadDevelopmentModule(`emulator ${name}`, load);
      await command(`opstream emulator ${name}`)
        .exitOverride()
        .showHelpAfterError(`(opstream emulator ${name} --help lists its options)`)
        .parseAsync(flags, { from: 'user' });
    });
}

export function registerEmulatorCosmos(emulator: Command): void {
  registerPackagedEmulator(
    emulator,
    'cosmos',
    'run the local Cosmos DB emulator (real change feed, partitions, TTL, splits, fault injection) until SIGINT/SIGTERM',
    async () => (await import('@opstream/cosmos-emulator/cli')).cosmosEmulatorCommand,
  );
}

export function registerEmulatorServiceBus(emulator: Command): void {
  registerPackagedEmulator(
    emulator,
    'service-bus',
    'run the local Service Bus stand-in (AMQP 1.0 for @azure/service-bus, official emulator Config.json) until SIGINT/SIGTERM',
    async () => (await import('@opstream/service-bus-emulator/cli')).serviceBusEmulatorCommand,
  );
}
