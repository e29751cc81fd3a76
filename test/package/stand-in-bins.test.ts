import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { CosmosClient } from '@azure/cosmos';
import { ServiceBusClient } from '@azure/service-bus';
import { CONFIG } from '../integration/service-bus/helpers';
import { waitFor } from '../helpers/wait-for';

/**
 * The two stand-ins another project's tests can use without opstream: each package's own bin
 * (what `npx opstream-cosmos-emulator --port 0` runs), started as a process, used through the real
 * SDK, stopped by SIGTERM with exit code 0.
 */
const BIN = resolve(__dirname, '../../node_modules/.bin');

class Bin {
  output = '';
  readonly exited: Promise<number | null>;
  private readonly child: ChildProcess;

  constructor(name: string, args: string[]) {
    const file = join(BIN, name);
    if (!existsSync(file)) throw new Error(`${file} is missing: run npm install (it links the workspace bins) and npm run build`);
    this.child = spawn(process.execPath, [file, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    this.child.stdout!.on('data', (b: Buffer) => (this.output += b.toString()));
    this.child.stderr!.on('data', (b: Buffer) => (this.output += b.toString()));
    this.exited = new Promise((done) => this.child.once('exit', (code) => done(code)));
  }

  async line(pattern: RegExp): Promise<string> {
    const m = await waitFor(() => pattern.exec(this.output), { timeoutMs: 30_000, describe: () => `${pattern} in ${this.output}` });
    return m[1];
  }

  stop(): void {
    this.child.kill('SIGTERM');
  }

  kill(): void {
    if (this.child.exitCode === null) this.child.kill('SIGKILL');
  }
}

describe('the stand-ins through their own bins', () => {
  const running: Bin[] = [];
  afterAll(async () => {
    for (const bin of running) bin.kill();
    await Promise.all(running.map((b) => b.exited));
  });

  it('opstream-cosmos-emulator serves @azure/cosmos and exits 0 on SIGTERM', async () => {
    const bin = new Bin('opstream-cosmos-emulator', ['--port', '0', '--partitions', '2']);
    running.push(bin);
    const endpoint = await bin.line(/^endpoint: (\S+)$/m);
    const key = await bin.line(/^key: (\S+)$/m);
    const client = new CosmosClient({ endpoint, key, connectionPolicy: { enableEndpointDiscovery: false } });
    try {
      const { database } = await client.databases.createIfNotExists({ id: 'bin' });
      const { container } = await database.containers.createIfNotExists({ id: 'items', partitionKey: { paths: ['/pk'] } });
      await container.items.create({ id: 'a', pk: 'p' });
      expect((await container.item('a', 'p').read<{ id: string }>()).resource?.id).toBe('a');
      expect(await container.getFeedRanges()).toHaveLength(2);
    } finally {
      client.dispose();
    }
    bin.stop();
    expect(await bin.exited).toBe(0);
  }, 90_000);

  it('opstream-cosmos-emulator refuses a bad flag with a usage error naming it', async () => {
    const bin = new Bin('opstream-cosmos-emulator', ['--partitions', '0']);
    running.push(bin);
    expect(await bin.exited).toBe(2);
    expect(bin.output).toMatch(/--partitions must be an integer from 1 to 1024/);
  }, 30_000);

  it('opstream-service-bus-emulator serves @azure/service-bus from a Config.json and exits 0 on SIGTERM', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-bin-'));
    try {
      writeFileSync(join(dir, 'Config.json'), JSON.stringify(CONFIG));
      const bin = new Bin('opstream-service-bus-emulator', ['--port', '0', '--config', join(dir, 'Config.json')]);
      running.push(bin);
      const connectionString = await bin.line(/^connection string: (\S+)$/m);
      const client = new ServiceBusClient(connectionString, { retryOptions: { maxRetries: 1, timeoutInMs: 10_000 } });
      try {
        await client.createSender('orders').sendMessages({ body: 'hello', messageId: 'm1' });
        const receiver = client.createReceiver('orders', { receiveMode: 'receiveAndDelete' });
        const [message] = await receiver.receiveMessages(1, { maxWaitTimeInMs: 10_000 });
        expect(message?.body).toBe('hello');
      } finally {
        await client.close();
      }
      bin.stop();
      expect(await bin.exited).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);
});
