/**
 * The baseline as a process (the harness measures it like `opstream run`): settings from the
 * environment (see config.ts), "baseline ready" on stderr once running, a JSON line of its
 * statistics on stdout when SIGTERM/SIGINT stops it.
 */
import { baselineConfigFromEnv, startBaseline } from './index';

async function main(): Promise<void> {
  const baseline = await startBaseline(baselineConfigFromEnv());
  process.stderr.write(`baseline ready (pid ${process.pid})\n`);
  await new Promise<void>((resolve) => {
    const stop = (): void => {
      process.off('SIGTERM', stop);
      process.off('SIGINT', stop);
      resolve();
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
  });
  await baseline.stop();
  process.stdout.write(`${JSON.stringify({ baselineStats: baseline.stats })}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`baseline: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
