import { Command, InvalidArgumentError } from 'commander';
import { createLogger } from '../../logging/logger';
import { addConfigFlags, configFromFlags } from '../config-flags';
import { defaultDataDir } from '../data-dir';
import { waitForSignal } from '../wait-for-signal';
import { loadDevelopmentModule } from '../development-install';

const int =
  (name: string) =>
  (v: string): number => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError(`${name} must be a whole number >= 0`);
    return n;
  };

/** `opstream start` (`npm start`): the embedded default — local Cosmos, CS simulator, processor, demo workload. */
export function registerStart(program: Command): void {
  const command = program
    .command('start')
    .description(
      'run the embedded default: local Cosmos emulator, Clusters Service simulator, Service Bus, opstream and a demo workload; Ctrl-C stops',
    )
    .option('--data-dir <dir>', 'where the local Cosmos emulator keeps its journal', defaultDataDir())
    .option('--cosmos-port <port>', 'Cosmos emulator port (0 = any free port)', int('--cosmos-port'), 8081)
    .option('--clusters-service-port <port>', 'Clusters Service simulator port (0 = any free port)', int('--clusters-service-port'), 8000)
    .option(
      '--service-bus-port <port>',
      'local Service Bus (AMQP) port; 0 = any free port (the connection string is printed)',
      int('--service-bus-port'),
      0,
    )
    .option('--demo-subscriptions <n>', 'subscriptions in the demo workload (0 = no demo)', int('--demo-subscriptions'), 2)
    .option('--demo-clusters <n>', 'clusters per demo subscription', int('--demo-clusters'), 2)
    .option('--cs-phase-ms <ms>', 'how long each simulated Clusters Service phase lasts', int('--cs-phase-ms'), 500)
    .option('--exit-after-demo', 'stop once the demo workload is done (non-zero exit if an operation ended unexpectedly)');
  addConfigFlags(command).action(async (flags: Record<string, unknown>) => {
    const config = configFromFlags(flags);
    const logger = createLogger({ level: config.log.level, format: config.log.format });
    const out = (line: string): void => void process.stdout.write(`${line}\n`);
    const demoSubs = flags.demoSubscriptions as number;
    // Loaded here, not at the top: `opstream run` (the production image) ships no emulator code.
    const { startEmbedded } = await loadDevelopmentModule('start', () => import('../embedded'));
    const embedded = await startEmbedded(config, {
      dataDir: flags.dataDir as string,
      cosmosPort: flags.cosmosPort as number,
      clustersServicePort: flags.clustersServicePort as number,
      serviceBusPort: flags.serviceBusPort as number,
      demo: demoSubs > 0 ? { subscriptions: demoSubs, clustersPerSubscription: flags.demoClusters as number } : false,
      csPhaseMs: flags.csPhaseMs as number,
      logger,
      progress: out,
    });
    out('opstream is running; Ctrl-C stops everything');
    let exitCode = 0;
    if (embedded.demo && flags.exitAfterDemo) {
      const result = await embedded.demo;
      out(`demo finished: ${result.operations} operations, ${JSON.stringify(result.byStatus)}`);
      if (result.unexpected.length) exitCode = 1;
    } else {
      void embedded.demo?.then(
        (r) => out(`demo finished: ${r.operations} operations, ${JSON.stringify(r.byStatus)}; still running, Ctrl-C stops`),
        (err: unknown) => out(`demo stopped: ${(err as Error).message}`),
      );
      const signal = await waitForSignal();
      out(`${signal}: stopping`);
    }
    await embedded.stop();
    out('stopped');
    // Everything is stopped and closed; exit rather than wait for the event loop to empty. The Service
    // Bus SDK's connections to the in-process stand-in, which closes with the rest, can keep a
    // reconnect timer alive after their clients were closed (seen in about one stop in three).
    process.exit(exitCode);
  });
}
