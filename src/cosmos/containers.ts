/**
 * The Cosmos database layout (DESIGN.md "The documents") and its bootstrap. With `create` the
 * database and containers are created when missing (the embedded default, tests); without it
 * (production) they must already exist, and a missing or misconfigured one fails fast with a
 * message that says what to create. Existing containers are never modified.
 */
import type { Container, ContainerDefinition, CosmosClient, Database } from '@azure/cosmos';
import type { Logger } from '../logging/logger';
import { ContainerSetupError, cosmosStatus, CosmosRequestError } from './errors';

export const DEFAULT_DATABASE_ID = 'opstream';

export interface ContainerSpec {
  readonly id: string;
  readonly partitionKeyPath: string;
  /** Other partition key paths that work as well (the lease container: `/partitionKey`, as for .NET). */
  readonly otherPartitionKeyPaths?: readonly string[];
  /**
   * Container default TTL in seconds: undefined = TTL off, -1 = on without default (items with a
   * `ttl` expire), n > 0 = default. `ttlRequired`: the protocol breaks with TTL off.
   */
  readonly defaultTtl: number | undefined;
  readonly ttlRequired: boolean;
}

export const CONTAINERS = Object.freeze({
  operations: { id: 'Operations', partitionKeyPath: '/partitionKey', defaultTtl: 7 * 24 * 3600, ttlRequired: false },
  resources: { id: 'Resources', partitionKeyPath: '/partitionKey', defaultTtl: undefined, ttlRequired: false },
  subscriptions: { id: 'Subscriptions', partitionKeyPath: '/id', defaultTtl: undefined, ttlRequired: false },
  /** A dead holder's lock must expire: TTL is required. */
  locks: { id: 'Locks', partitionKeyPath: '/id', defaultTtl: 10, ttlRequired: true },
  leases: { id: 'Leases', partitionKeyPath: '/id', otherPartitionKeyPaths: ['/partitionKey'], defaultTtl: -1, ttlRequired: true },
  deadLetters: { id: 'DeadLetters', partitionKeyPath: '/partitionKey', defaultTtl: -1, ttlRequired: false },
} satisfies Record<string, ContainerSpec>);

export type ContainerName = keyof typeof CONTAINERS;

export type OpstreamContainers = { readonly database: Database } & { readonly [K in ContainerName]: Container };

export interface EnsureContainersOptions {
  /** Create what is missing (true) or only verify (false). */
  create: boolean;
  /** Mismatches that are not fatal (e.g. another default TTL) are logged here. */
  logger?: Logger;
}

/** How to have the layout created, in every "does not exist" message (flag and variable of `cosmos.createContainers`). */
const CREATE_CONTAINERS_HINT = 'start opstream run with --cosmos-create-containers (or OPSTREAM_COSMOS_CREATE_CONTAINERS=true) to create what is missing';

function fixHint(spec: ContainerSpec): string {
  const ttl = spec.defaultTtl === undefined ? 'TTL off' : spec.defaultTtl === -1 ? 'TTL on with no default (-1)' : `default TTL ${spec.defaultTtl} s`;
  return `partition key ${spec.partitionKeyPath}, ${ttl}`;
}

/** Checks an existing container against its spec; returns warnings, throws on fatal mismatches. */
export function checkContainer(databaseId: string, spec: ContainerSpec, definition: ContainerDefinition): string[] {
  const paths = definition.partitionKey?.paths ?? [];
  if (paths.length !== 1 || (paths[0] !== spec.partitionKeyPath && !(spec.otherPartitionKeyPaths ?? []).includes(paths[0]))) {
    throw new ContainerSetupError(
      `container ${databaseId}/${spec.id} has partition key ${JSON.stringify(paths)}, expected ${spec.partitionKeyPath}; ` +
        `the partition key cannot be changed: recreate the container with ${fixHint(spec)}`,
    );
  }
  const actual = definition.defaultTtl ?? undefined;
  if (spec.ttlRequired && actual === undefined) {
    throw new ContainerSetupError(
      `container ${databaseId}/${spec.id} has TTL off, but its documents must expire; set its default TTL (${fixHint(spec)})`,
    );
  }
  if (actual !== spec.defaultTtl) {
    return [`container ${databaseId}/${spec.id} has default TTL ${String(actual ?? 'off')}, expected ${String(spec.defaultTtl ?? 'off')}`];
  }
  return [];
}

async function readDefinition(container: Container): Promise<ContainerDefinition | undefined> {
  try {
    const { resource } = await container.read();
    return resource ?? undefined;
  } catch (err) {
    if (cosmosStatus(err) === 404) return undefined;
    throw new CosmosRequestError(`read container ${container.id}`, err);
  }
}

/**
 * Returns the database and every container, creating them when `create` is true. Safe to run
 * from several instances at once (create-if-not-exists).
 */
export async function ensureContainers(
  client: CosmosClient,
  databaseId: string = DEFAULT_DATABASE_ID,
  options: EnsureContainersOptions,
): Promise<OpstreamContainers> {
  let database: Database;
  if (options.create) {
    try {
      ({ database } = await client.databases.createIfNotExists({ id: databaseId }));
    } catch (err) {
      throw new CosmosRequestError(`create database ${databaseId}`, err);
    }
  } else {
    database = client.database(databaseId);
    try {
      await database.read();
    } catch (err) {
      if (cosmosStatus(err) === 404) {
        throw new ContainerSetupError(`Cosmos database "${databaseId}" does not exist; create it (and its containers), or ${CREATE_CONTAINERS_HINT}`);
      }
      throw new CosmosRequestError(`read database ${databaseId}`, err);
    }
  }

  const out: Partial<Record<ContainerName, Container>> = {};
  for (const [name, spec] of Object.entries(CONTAINERS) as Array<[ContainerName, ContainerSpec]>) {
    let container = database.container(spec.id);
    let definition = await readDefinition(container);
    if (!definition) {
      if (!options.create) {
        throw new ContainerSetupError(
          `Cosmos container ${databaseId}/${spec.id} does not exist; create it with ${fixHint(spec)}, or ${CREATE_CONTAINERS_HINT}`,
        );
      }
      try {
        const created = await database.containers.createIfNotExists({
          id: spec.id,
          partitionKey: { paths: [spec.partitionKeyPath] },
          ...(spec.defaultTtl === undefined ? {} : { defaultTtl: spec.defaultTtl }),
        });
        container = created.container;
        definition = created.resource ?? (await readDefinition(container));
      } catch (err) {
        throw new CosmosRequestError(`create container ${databaseId}/${spec.id}`, err);
      }
    }
    if (definition) for (const warning of checkContainer(databaseId, spec, definition)) options.logger?.warn(warning, { database: databaseId, container: spec.id });
    out[name] = container;
  }
  return { database, ...(out as Record<ContainerName, Container>) };
}
