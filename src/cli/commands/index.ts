import { Command } from 'commander';
import { registerStart } from './start';

/** Every subcommand, registered in help order. One line per command file. */
export function registerCommands(program: Command): void {
  registerStart(program);
  const emulator = program
    .command('emulator')
    .description('run a local stand-in of a service opstream talks to (loopback only)');
  void emulator; // subcommands: emulator-cosmos.ts, emulator-clusters-service.ts register here
}
