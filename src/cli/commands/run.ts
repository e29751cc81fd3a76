import { Command } from 'commander';
import { defaultProcessors } from '../../../processors/registry';
import { startOpstream } from '../../app/opstream-app';
import { addConfigFlags, configFromFlags, RUN_REQUIRED } from '../config-flags';
import { EXIT } from '../exit-codes';
import { stopWithin } from '../stop-within';
import { waitForSignal } from '../wait-for-signal';

/** `opstream run`: the processor alone, against the Cosmos and Clusters Service endpoints configured. */
export function registerRun(program: Command): void {
  const command = program
    .command('run')
    .description('run the processor against the configured Cosmos DB and Clusters Service (flags, OPSTREAM_* environment, or --config)');
  addConfigFlags(command).action(async (flags: Record<string, unknown>) => {
    const config = configFromFlags(flags, RUN_REQUIRED);
    const app = await startOpstream(config, { processors: defaultProcessors });
    // Listen before saying so: a SIGTERM sent on the line must stop it gracefully, not kill it.
    const signalled = waitForSignal();
    process.stderr.write(
      `opstream ${app.instanceName} running${app.opsUrl ? `; ops server ${app.opsUrl}` : ''}${app.metricsUrl ? `; probes and metrics ${app.metricsUrl}` : ''}; Ctrl-C stops\n`,
    );
    await signalled;
    if (!(await stopWithin(app.stop(), config.shutdown.timeoutMs))) {
      process.stderr.write(`opstream: stop took longer than shutdown.timeoutMs (${config.shutdown.timeoutMs} ms); exiting, leases not released expire\n`);
      process.exit(EXIT.failure);
    }
  });
}
