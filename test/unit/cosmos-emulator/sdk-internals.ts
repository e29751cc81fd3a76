import { createRequire } from 'node:module';
import * as path from 'node:path';

/**
 * The SDK's own implementations, loaded from its compiled files (the package's `exports` map hides
 * them), so tests can check the emulator against what `@azure/cosmos` really computes.
 */
const load = createRequire(__filename);
const sdkDir = path.dirname(load.resolve('@azure/cosmos'));

export function sdkHashV2(partitionKey: unknown[]): string {
  const mod = load(path.join(sdkDir, 'utils/hashing/v2.js')) as { hashV2PartitionKey(pk: unknown[]): string };
  return mod.hashV2PartitionKey(partitionKey);
}

export async function sdkAuthorizationHeader(
  key: string,
  verb: string,
  resourceType: string,
  resourceId: string,
  date: Date,
): Promise<string> {
  const mod = load(path.join(sdkDir, 'utils/headers.js')) as {
    generateHeaders(key: string, verb: string, type: string, id: string, date: Date): Promise<Record<string, string>>;
  };
  const headers = await mod.generateHeaders(key, verb, resourceType, resourceId, date);
  return headers.authorization;
}

export function sdkHashV1(partitionKey: unknown[]): string {
  const mod = load(path.join(sdkDir, 'utils/hashing/v1.js')) as { hashV1PartitionKey(pk: unknown[]): string };
  return mod.hashV1PartitionKey(partitionKey);
}

/** The SDK's own choice of hash for a container's partition key definition (v1, v2 or MultiHash). */
export function sdkHashPartitionKey(partitionKey: unknown[], definition: { paths: string[]; kind?: string; version?: number }): string {
  const mod = load(path.join(sdkDir, 'utils/hashing/hash.js')) as { hashPartitionKey(pk: unknown[], definition: unknown): string };
  return mod.hashPartitionKey(partitionKey, definition);
}
