import { Command } from 'commander';
import { registerConfigCheck } from './config-check';
import { registerDeadLetters } from './dead-letters';
import { registerEmulatorClustersService } from './emulator-clusters-service';
import { registerEmulatorIdentity } from './emulator-identity';
import { registerPackagedEmulator } from './emulator-packaged';
import { registerLag } from './lag';
import { registerLeases } from './leases';
import { registerRun } from './run';
import { registerStart } from './start';
import { registerTap } from './tap';

/** Every subcommand, registered in help order. One line per command file. */
export function registerCommands(program: Command): void {
  registerStart(program);
  registerRun(program);
  registerTap(program);
  registerLeases(program);
  registerLag(program);
  registerDeadLetters(program);
  registerConfigCheck(program);
  const emulator = program
    .command('emulator')
    .description('run a local stand-in of a service opstream talks to (loopback only)');
  registerPackagedEmulator(
    emulator,
    'cosmos',
    'run the local Cosmos DB emulator (real change feed, partitions, TTL, splits, fault injection) until SIGINT/SIGTERM',
    async () => (await import('@opstream/cosmos-emulator/cli')).cosmosEmulatorCommand,
  );
  registerEmulatorClustersService(emulator);
  registerPackagedEmulator(
    emulator,
    'service-bus',
    'run the local Service Bus stand-in (AMQP 1.0 for @azure/service-bus, official emulator Config.json) until SIGINT/SIGTERM',
    async () => (await import('@opstream/service-bus-emulator/cli')).serviceBusEmulatorCommand,
  );
  registerEmulatorIdentity(emulator);
}
