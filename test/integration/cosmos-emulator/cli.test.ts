import { spawn } from 'node:child_process';
import { startCosmosEmulator } from '@opstream/cosmos-emulator';
import { emulatorClient } from '../../helpers/cosmos';
import { CLI, spawnEmulator } from './child-process';

function run(args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (b: Buffer) => (output += b.toString()));
    child.stderr.on('data', (b: Buffer) => (output += b.toString()));
    child.on('exit', (code) => resolve({ code, output }));
  });
}

describe('opstream emulator cosmos (CLI)', () => {
  it('prints endpoint and key, serves the SDK with a custom key and partition count, stops on SIGINT', async () => {
    const key = Buffer.from('a custom local key for this test').toString('base64');
    const proc = await spawnEmulator(['--port', '0', '--partitions', '2', '--key', key]);
    expect(proc.key).toBe(key);
    expect(proc.output()).toMatch(/2 partitions, memory only/);
    const client = emulatorClient(proc);
    try {
      const { database } = await client.databases.create({ id: 'cli' });
      const { container } = await database.containers.create({ id: 'c', partitionKey: { paths: ['/pk'] } });
      expect(await container.getFeedRanges()).toHaveLength(2);
    } finally {
      client.dispose();
      proc.child.kill('SIGINT');
    }
    expect(await proc.exited).toEqual({ code: 0, signal: null });
  });

  it('refuses bad options with a usage error', async () => {
    const bad = await run(['emulator', 'cosmos', '--partitions', '0']);
    expect(bad.code).not.toBe(0);
    expect(bad.output).toMatch(/--partitions must be an integer from 1 to 1024/);
    const host = await run(['emulator', 'cosmos', '--host', '0.0.0.0']);
    expect(host.code).not.toBe(0);
    expect(host.output).toMatch(/127\.0\.0\.1/);
  });

  it('exits with EX_UNAVAILABLE (69) and says why when the port is taken', async () => {
    const emu = await startCosmosEmulator({ port: 0 });
    try {
      const taken = await run(['emulator', 'cosmos', '--port', String(emu.port)]);
      expect(taken.code).toBe(69);
      expect(taken.output).toMatch(/cannot start the Cosmos emulator: .*EADDRINUSE/);
    } finally {
      await emu.close();
    }
  });
});
