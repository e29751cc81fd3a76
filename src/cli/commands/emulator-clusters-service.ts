import { Command, InvalidArgumentError } from 'commander';
import type { Durations } from '@opstream/clusters-service-simulator';
import { loadDevelopmentModule } from '../development-install';
import { EXIT } from '../exit-codes';

function nonNegativeInt(name: string): (raw: string) => number {
  return (raw) => {
    const value = Number(raw);
    if (!Number.isInteger(value) || value < 0) throw new InvalidArgumentError(`${name} must be a whole number >= 0 (got "${raw}")`);
    return value;
  };
}

interface Flags {
  port: number;
  host: string;
  allowRemote?: boolean;
  token?: string;
  adminToken?: string;
  seed: number;
  pendingMs?: number;
  validatingMs?: number;
  installingMs?: number;
  updatingMs?: number;
  deleteStartMs?: number;
  uninstallingMs?: number;
  serviceBus?: string;
  serviceBusTopic: string;
}

/**
 * `opstream emulator clusters-service [--port 8000]`: the Clusters Service simulator as a process,
 * until SIGINT/SIGTERM. Test controls are under `/_admin` (infra/clusters-service/README.md), behind
 * an admin token it prints; it listens on loopback unless `--allow-remote`.
 */
export function registerEmulatorClustersService(emulator: Command): void {
  emulator
    .command('clusters-service')
    .description('run the Clusters Service simulator (/api/aro_hcp/v1alpha1, admin under /_admin)')
    .option('--port <port>', 'port to listen on (0 = any free port)', nonNegativeInt('--port'), 8000)
    .option('--host <host>', 'loopback address to listen on (another one needs --allow-remote)', '127.0.0.1')
    .option('--allow-remote', 'let --host be a non-loopback address: the API and /_admin become reachable from the network')
    .option('--token <token>', 'require this bearer token on API calls (env OPSTREAM_CS_SIMULATOR_TOKEN)')
    .option('--admin-token <token>', 'bearer token of the /_admin calls (env OPSTREAM_CS_SIMULATOR_ADMIN_TOKEN; default: random, printed)')
    .option('--seed <n>', 'seed for rate-limited fault injection', nonNegativeInt('--seed'), 1)
    .option('--pending-ms <ms>', 'time a new object stays pending', nonNegativeInt('--pending-ms'))
    .option('--validating-ms <ms>', 'time spent validating', nonNegativeInt('--validating-ms'))
    .option('--installing-ms <ms>', 'time spent installing', nonNegativeInt('--installing-ms'))
    .option('--updating-ms <ms>', 'time spent updating', nonNegativeInt('--updating-ms'))
    .option('--delete-start-ms <ms>', 'time the previous state is still reported after DELETE', nonNegativeInt('--delete-start-ms'))
    .option('--uninstalling-ms <ms>', 'time spent uninstalling before 404', nonNegativeInt('--uninstalling-ms'))
    .option(
      '--service-bus <connection-string>',
      'publish every cluster and node-pool state change to this Service Bus namespace (env OPSTREAM_CS_SIMULATOR_SERVICE_BUS)',
    )
    .option('--service-bus-topic <topic>', 'topic of the state-change events', 'clusters-service-events')
    .action(async (flags: Flags) => {
      // Loaded here, not at the top: `opstream run` (the production image) ships no emulator code.
      const { startClustersServiceSimulator, checkBindHost } = await loadDevelopmentModule(
        'emulator clusters-service',
        () => import('@opstream/clusters-service-simulator'),
      );
      try {
        checkBindHost(flags.host, flags.allowRemote ?? false);
      } catch (err) {
        throw Object.assign(err as Error, { exitCode: EXIT.usage });
      }
      const durations: Partial<Durations> = {};
      for (const key of ['pendingMs', 'validatingMs', 'installingMs', 'updatingMs', 'deleteStartMs', 'uninstallingMs'] as const) {
        if (flags[key] !== undefined) durations[key] = flags[key];
      }
      const serviceBus = flags.serviceBus ?? process.env.OPSTREAM_CS_SIMULATOR_SERVICE_BUS;
      let simulator;
      try {
        simulator = await startClustersServiceSimulator({
          port: flags.port,
          host: flags.host,
          allowRemote: flags.allowRemote,
          token: flags.token ?? process.env.OPSTREAM_CS_SIMULATOR_TOKEN,
          adminToken: flags.adminToken ?? process.env.OPSTREAM_CS_SIMULATOR_ADMIN_TOKEN,
          seed: flags.seed,
          durations,
          ...(serviceBus ? { serviceBus: { connectionString: serviceBus, topic: flags.serviceBusTopic } } : {}),
        });
      } catch (err) {
        throw Object.assign(new Error(`cannot start the Clusters Service simulator: ${err instanceof Error ? err.message : String(err)}`), {
          exitCode: EXIT.unavailable,
        });
      }
      process.stdout.write(`clusters-service simulator listening on ${simulator.url} (API /api/aro_hcp/v1alpha1, admin /_admin)\n`);
      process.stdout.write(
        `admin: ${simulator.url}/_admin/ with "Authorization: Bearer ${simulator.adminToken}" (see infra/clusters-service/README.md)\n`,
      );
      if (serviceBus) process.stdout.write(`publishing state changes on Service Bus topic ${flags.serviceBusTopic}\n`);
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      await simulator.close();
    });
}
