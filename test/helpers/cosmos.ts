import type { CosmosClient, Database } from '@azure/cosmos';
import { CosmosEmulator, CosmosEmulatorOptions, startCosmosEmulator } from '@opstream/cosmos-emulator';
import { emulatorClient } from '@opstream/cosmos-emulator/client-options';
import { uniqueName } from './wait-for';

export { emulatorClient, emulatorClientOptions, hashV2Key } from '@opstream/cosmos-emulator/client-options';

export interface TestCosmos {
  emu: CosmosEmulator;
  client: CosmosClient;
  /** Disposes the client and stops the emulator. */
  close(): Promise<void>;
}

/** An in-process emulator on a free port (4 partitions unless told otherwise) and a client for it. */
export async function startTestCosmos(options: CosmosEmulatorOptions = {}): Promise<TestCosmos> {
  const emu = await startCosmosEmulator({ port: 0, partitions: 4, ...options });
  const client = emulatorClient(emu);
  return {
    emu,
    client,
    close: async () => {
      client.dispose();
      await emu.close();
    },
  };
}

/** A database with a name no other test uses. */
export async function createTestDatabase(client: CosmosClient, prefix = 'test'): Promise<Database> {
  const { database } = await client.databases.createIfNotExists({ id: uniqueName(prefix) });
  return database;
}

/** The requests the emulator served while `look` ran, by container id (`-`: account and database); containers with none are left out. */
export async function requestsDuring(emu: CosmosEmulator, look: () => Promise<unknown>): Promise<Record<string, number>> {
  emu.resetCounters();
  await look();
  return Object.fromEntries(
    Object.entries(emu.counters().byContainer)
      .map(([id, counts]): [string, number] => [id, Object.values(counts.requests).reduce<number>((s, n) => s + (n ?? 0), 0)])
      .filter(([, n]) => n > 0),
  );
}
