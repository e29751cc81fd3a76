import { Command } from 'commander';
import { registerEmulatorCosmos } from './emulator-cosmos';
import { registerEmulatorClustersService } from './emulator-clusters-service';
import { registerRun } from './run';
import { registerStart } from './start';

/** Every subcommand, registered in help order. One line per command file. */
export function registerCommands(program: Command): void {
  registerStart(program);
  registerRun(program);
  const emulator = program
    .command('emulator')
    .description('run a local stand-in of a service opstream talks to (loopback only)');
  registerEmulatorCosmos(emulator);
  registerEmulatorClustersService(emulator);
}
