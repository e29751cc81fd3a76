import { Command, InvalidArgumentError, Option } from 'commander';
import { EXIT } from '../exit-codes';

/**
 * `opstream emulator cosmos`: the local Cosmos DB emulator (infra/cosmos-emulator) as a process. Prints
 * the endpoint and the master key (a local development key, printed on purpose) and serves until
 * SIGINT/SIGTERM, then flushes its journal and exits 0.
 */
function integer(name: string, min: number, max: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min || n > max) throw new InvalidArgumentError(`${name} must be an integer from ${min} to ${max}.`);
    return n;
  };
}

interface CosmosEmulatorFlags {
  port: number;
  partitions: number;
  key?: string;
  dataDir?: string;
  host: '127.0.0.1' | 'localhost' | '::1';
}

export function registerEmulatorCosmos(emulator: Command): void {
  emulator
    .command('cosmos')
    .description('run the local Cosmos DB emulator (real change feed, partitions, TTL, splits, fault injection) until SIGINT/SIGTERM')
    .option('--port <port>', 'TCP port on loopback (0 picks a free one)', integer('--port', 0, 65535), 8081)
    .option('--partitions <n>', 'physical partitions of every new container', integer('--partitions', 1, 64), 4)
    .option('--key <key>', 'master key (base64); default: the well-known public emulator key')
    .option('--data-dir <dir>', 'journal directory: acknowledged writes survive kill -9 and restarts (default: memory only)')
    .addOption(new Option('--host <host>', 'loopback address to listen on').choices(['127.0.0.1', 'localhost', '::1']).default('127.0.0.1'))
    .action(async (flags: CosmosEmulatorFlags) => {
      // Loaded here, not at the top: `opstream run` (the production image) ships no emulator code.
      const { startCosmosEmulator } = await import('../../../infra/cosmos-emulator');
      let emu;
      try {
        emu = await startCosmosEmulator({
          port: flags.port,
          partitions: flags.partitions,
          key: flags.key,
          dataDir: flags.dataDir,
          host: flags.host,
          onInternalError: (err) => process.stderr.write(`cosmos emulator: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`),
        });
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        throw Object.assign(new Error(`cannot start the Cosmos emulator: ${message}`), { exitCode: EXIT.unavailable });
      }
      const out = process.stdout;
      out.write(`Cosmos DB emulator ready (${flags.partitions} partitions, ${flags.dataDir ? `journal in ${flags.dataDir}` : 'memory only'})\n`);
      out.write(`endpoint: ${emu.endpoint}\n`);
      out.write(`key: ${emu.key}\n`);
      out.write(`admin: ${emu.endpoint}_admin/ with "Authorization: Bearer <key>" (see infra/cosmos-emulator/README.md)\n`);
      const running = emu;
      await new Promise<void>((resolve) => {
        const stop = (signal: NodeJS.Signals): void => {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          out.write(`cosmos emulator: ${signal}, shutting down\n`);
          void running.close().then(resolve, (err: unknown) => {
            process.stderr.write(`cosmos emulator: error while closing: ${String(err)}\n`);
            process.exitCode = EXIT.failure;
            resolve();
          });
        };
        process.on('SIGINT', stop);
        process.on('SIGTERM', stop);
      });
    });
}
