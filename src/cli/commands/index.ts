import { Command } from 'commander';
import { registerStart } from './start';

/** Every subcommand, registered in help order. One line per command file. */
export function registerCommands(program: Command): void {
  registerStart(program);
}
