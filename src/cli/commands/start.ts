import { Command } from 'commander';

/** `opstream start`: the embedded default (emulators, processor, ops server, demo workload). */
export function registerStart(program: Command): void {
  program
    .command('start')
    .description('run the embedded default: local Cosmos emulator, Clusters Service simulator, processor and a demo workload')
    .action(() => {
      process.stdout.write('opstream: the operation pipeline is not built yet; see the README for the emulator commands.\n');
    });
}
