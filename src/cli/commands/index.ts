import { Command } from 'commander';
import { registerConfigCheck } from './config-check';
import { registerDeadLetters } from './dead-letters';
import { registerEmulatorClustersService } from './emulator-clusters-service';
import { registerEmulatorIdentity } from './emulator-identity';
import { registerEmulatorCosmos, registerEmulatorServiceBus } from './emulator-packaged';
import { registerExplain } from './explain';
import { registerLag } from './lag';
import { registerLeases } from './leases';
import { registerOperations } from './operations';
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
  registerExplain(program);
  registerOperations(program);
  registerDeadLetters(program);
  registerConfigCheck(program);
  const emulator = program.command('emulator').description('run a local stand-in of a service opstream talks to (loopback only)');
  registerEmulatorCosmos(emulator);
  registerEmulatorClustersService(emulator);
  registerEmulatorServiceBus(emulator);
  registerEmulatorIdentity(emulator);
}
