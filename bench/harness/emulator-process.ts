/**
 * The Cosmos emulator as a child process (`opstream emulator cosmos --port 0`): its CPU is apart
 * from the harness and the systems measured. Counters come from its admin API.
 */
import { join } from 'node:path';
import type { CounterSnapshot } from '@opstream/cosmos-emulator';
import { Child } from './child-process';

export const CLI = join(__dirname, '../../src/cli/main.js');

export interface EmulatorProcess {
  readonly endpoint: string;
  readonly key: string;
  readonly child: Child;
  counters(): Promise<CounterSnapshot>;
  resetCounters(): Promise<void>;
  stop(): Promise<void>;
}

export async function startEmulatorProcess(label: string, partitions: number): Promise<EmulatorProcess> {
  const child = await Child.start({
    label,
    args: [CLI, 'emulator', 'cosmos', '--port', '0', '--partitions', String(partitions)],
    ready: /^key: /,
  });
  const endpoint = (await child.waitForLine(/^endpoint: /, 5_000)).replace(/^endpoint: /, '').trim();
  const key = (await child.waitForLine(/^key: /, 5_000)).replace(/^key: /, '').trim();
  const admin = async (method: string, path: string): Promise<Response> => {
    const res = await fetch(`${endpoint}_admin/${path}`, { method, headers: { authorization: `Bearer ${key}` } });
    if (!res.ok) throw new Error(`${label}: admin ${method} ${path} answered ${res.status}`);
    return res;
  };
  return {
    endpoint,
    key,
    child,
    counters: async () => (await (await admin('GET', 'counters')).json()) as CounterSnapshot,
    resetCounters: async () => {
      await admin('DELETE', 'counters');
    },
    stop: async () => {
      await child.stop();
    },
  };
}
