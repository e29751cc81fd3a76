import { Command } from 'commander';
import { defaultProcessors } from '../../../processors/registry';
import { startOpstream } from '../../app/opstream-app';
import { createLogger, logFormat } from '../../logging/logger';
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
    const format = logFormat(config.log.format);
    const logger = createLogger({ level: config.log.level, format });
    // JSON logs on stderr stay JSON: what `run` says to a person is a record there (whatever log.level: scripts wait for it),
    // and plain text only beside readable lines (or no log at all).
    const notices = createLogger({ level: 'debug', format });
    const say = (level: 'info' | 'error', line: string, fields: Record<string, unknown> = {}): void => {
      if (format === 'json' && !logger.silent) notices.log(level, line, fields);
      else process.stderr.write(`${line}\n`);
    };
    const app = await startOpstream(config, { processors: defaultProcessors, logger });
    // Listen before saying so: a SIGTERM sent on the line must stop it gracefully, not kill it.
    const signalled = waitForSignal();
    say(
      'info',
      `opstream ${app.instanceName} running${app.opsUrl ? `; ops server ${app.opsUrl}` : ''}${app.metricsUrl ? `; probes and metrics ${app.metricsUrl}` : ''}; Ctrl-C stops`,
      {
        instanceName: app.instanceName,
        ...(app.opsUrl ? { opsUrl: app.opsUrl } : {}),
        ...(app.metricsUrl ? { metricsUrl: app.metricsUrl } : {}),
      },
    );
    await signalled;
    if (!(await stopWithin(app.stop(), config.shutdown.timeoutMs))) {
      say(
        'error',
        `opstream: stop took longer than shutdown.timeoutMs (${config.shutdown.timeoutMs} ms); exiting, leases not released expire`,
      );
      process.exit(EXIT.failure);
    }
  });
}
