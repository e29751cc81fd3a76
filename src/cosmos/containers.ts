/**
 * The Cosmos database layout (DESIGN.md "The documents") and its bootstrap. With `create` the
 * database and containers are created when missing (the embedded default, tests); without it
 * (production) they must already exist, and a missing or misconfigured one fails fast with a
 * message that says what to create. Existing containers are never modified.
 */
import { OPERATION_LIFETIME_MS } from '../domain/document-time';
import type { Container, ContainerDefinition, CosmosClient, Database } from '@azure/cosmos';
import type { Logger } from '../logging/logger';
import { ContainerSetupError, cosmosStatus, CosmosRequestError } from './errors';

const DEFAULT_DATABASE_ID = 'opstream';

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
  /**
   * opstream computes where this container's documents live (@opstream/changefeed's effectivePartitionKey, hash version 2) to
   * relist a feed range: a version 1 container would put them elsewhere.
   */
  readonly hashV2Required?: boolean;
  /** Why that default TTL, for the warning about another. */
  readonly ttlWhy?: string;
}

/** Every container is created with hash version 2: the service reads a missing version as 1. */
export const PARTITION_KEY_VERSION = 2;

export const CONTAINERS = Object.freeze({
  operations: {
    id: 'Operations',
    partitionKeyPath: '/partitionKey',
    defaultTtl: OPERATION_LIFETIME_MS / 1000,
    ttlRequired: false,
    hashV2Required: true,
    ttlWhy: 'an ended operation is kept 7 days, as ARM polls it, then removed: off keeps every one forever, shorter loses them early',
  },
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
  /** …and handed here, each with its fix (`config check --for run` prints them). */
  onWarning?: (warning: string) => void;
  /**
   * The client authenticates with Entra ID, through which Cosmos DB creates nothing (403 substatus
   * 5300): the hints then name the Azure CLI and the Bicep template, never the switch that would be refused.
   */
  entraId?: boolean;
}

/**
 * How to have the layout made, in every "missing or wrong" message: the Bicep template in production
 * (under Entra ID the processor has no right to create containers), the switch in key-authenticated
 * development.
 */
const DEPLOY_HINT =
  'the template deploy/azure/main.bicep creates the database and every container (deploy/azure/containers.json lists them)';
const CREATE_CONTAINERS_HINT =
  'for key-authenticated development start opstream run with --cosmos-create-containers (or OPSTREAM_COSMOS_CREATE_CONTAINERS=true) to create what is missing';

/** Under Entra ID: why the switch is no way out, and what is. */
const ENTRA_ID_HINT =
  'under Entra ID opstream cannot create databases or containers (Cosmos DB makes them only through Azure Resource Manager)';

/** The Azure CLI command that makes the database. */
function createDatabaseCommand(databaseId: string): string {
  return `az cosmosdb sql database create -g <resource group> -a <account> -n ${databaseId}`;
}

/** The Azure CLI command that makes one container as opstream needs it. */
function createCommand(databaseId: string, spec: ContainerSpec): string {
  const ttl = spec.defaultTtl === undefined ? '' : ` --ttl ${spec.defaultTtl}`;
  return `az cosmosdb sql container create -g <resource group> -a <account> -d ${databaseId} -n ${spec.id} -p ${spec.partitionKeyPath} --partition-key-version ${PARTITION_KEY_VERSION}${ttl}`;
}

function fixHint(spec: ContainerSpec): string {
  const ttl =
    spec.defaultTtl === undefined ? 'TTL off' : spec.defaultTtl === -1 ? 'TTL on with no default (-1)' : `default TTL ${spec.defaultTtl} s`;
  return `partition key ${spec.partitionKeyPath} (hash version ${PARTITION_KEY_VERSION}), ${ttl}`;
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
  const version = definition.partitionKey?.version ?? 1;
  if (spec.hashV2Required && version !== PARTITION_KEY_VERSION) {
    throw new ContainerSetupError(
      `container ${databaseId}/${spec.id} uses partition key hash version ${version}${definition.partitionKey?.version === undefined ? ' (none given, which Cosmos reads as 1)' : ''}; ` +
        `opstream finds a feed range's operations by their version ${PARTITION_KEY_VERSION} hashes, and the version cannot be changed: recreate the container with ${fixHint(spec)}`,
    );
  }
  const actual = definition.defaultTtl ?? undefined;
  if (spec.ttlRequired && actual === undefined) {
    throw new ContainerSetupError(
      `container ${databaseId}/${spec.id} has TTL off, but its documents must expire; set its default TTL (${fixHint(spec)})`,
    );
  }
  if (actual !== spec.defaultTtl) {
    const fix =
      spec.defaultTtl === undefined
        ? 'its documents may expire: turn its TTL off'
        : `set it: az cosmosdb sql container update -g <resource group> -a <account> -d ${databaseId} -n ${spec.id} --ttl ${spec.defaultTtl}`;
    return [
      `container ${databaseId}/${spec.id} has default TTL ${String(actual ?? 'off')}, expected ${String(spec.defaultTtl ?? 'off')}${spec.ttlWhy ? ` (${spec.ttlWhy})` : ''}; ${fix}`,
    ];
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

/** Where the lease container lives when not in the main database: another database, maybe of another account. */
export interface LeaseLocation {
  client: CosmosClient;
  databaseId: string;
  /** That account authenticates with Entra ID (the hints then name the Azure CLI and the Bicep template). */
  entraId?: boolean;
}

/**
 * Returns the database and every container, creating them when `create` is true. Safe to run
 * from several instances at once (create-if-not-exists). `ids` renames containers (the
 * cosmos.*Container and leases.container settings); `leases` puts the lease container in another
 * database or account.
 */
export async function ensureContainers(
  client: CosmosClient,
  databaseId: string = DEFAULT_DATABASE_ID,
  options: EnsureContainersOptions & { ids?: Partial<Record<ContainerName, string>>; leases?: LeaseLocation },
): Promise<OpstreamContainers> {
  const database = await openDatabase(client, databaseId, options.create, options.entraId ?? false);
  const leaseDatabase = options.leases
    ? await openDatabase(options.leases.client, options.leases.databaseId, options.create, options.leases.entraId ?? false)
    : database;

  // Without `create`, reads only: every container is checked and every problem named at once.
  const problems: string[] = [];
  let wrong = false;
  const out: Partial<Record<ContainerName, Container>> = {};
  for (const [name, defaults] of Object.entries(CONTAINERS) as Array<[ContainerName, ContainerSpec]>) {
    const spec: ContainerSpec = { ...defaults, id: options.ids?.[name] ?? defaults.id };
    const db = name === 'leases' ? leaseDatabase : database;
    const dbId = db.id;
    let container = db.container(spec.id);
    let definition = await readDefinition(container);
    if (!definition) {
      if (!options.create) {
        problems.push(`container ${dbId}/${spec.id} does not exist (${fixHint(spec)}: ${createCommand(dbId, spec)})`);
        continue;
      }
      try {
        const created = await db.containers.createIfNotExists({
          id: spec.id,
          partitionKey: { paths: [spec.partitionKeyPath], version: PARTITION_KEY_VERSION },
          ...(spec.defaultTtl === undefined ? {} : { defaultTtl: spec.defaultTtl }),
        });
        container = created.container;
        definition = created.resource ?? (await readDefinition(container));
      } catch (err) {
        throw new CosmosRequestError(`create container ${dbId}/${spec.id}`, err);
      }
    }
    try {
      if (definition)
        for (const warning of checkContainer(dbId, spec, definition)) {
          options.logger?.warn(warning, { database: dbId, container: spec.id });
          options.onWarning?.(warning);
        }
    } catch (err) {
      if (!(err instanceof ContainerSetupError)) throw err;
      problems.push(err.message);
      wrong = true;
      continue;
    }
    out[name] = container;
  }
  if (problems.length > 0) {
    const fix = options.entraId
      ? `${capitalised(ENTRA_ID_HINT)}: ${DEPLOY_HINT}, or run the Azure CLI commands above`
      : `${capitalised(DEPLOY_HINT)}, or ${CREATE_CONTAINERS_HINT}`;
    throw new ContainerSetupError(`Cosmos containers of database "${databaseId}" are missing or wrong: ${problems.join('; ')}. ${fix}`, {
      missingOnly: !wrong,
    });
  }
  return { database, ...(out as Record<ContainerName, Container>) };
}

/** The database, created when `create`, else read: a missing one fails with what to do. */
async function openDatabase(client: CosmosClient, databaseId: string, create: boolean, entraId: boolean): Promise<Database> {
  if (create) {
    try {
      return (await client.databases.createIfNotExists({ id: databaseId })).database;
    } catch (err) {
      throw new CosmosRequestError(`create database ${databaseId}`, err);
    }
  }
  const database = client.database(databaseId);
  try {
    await database.read();
  } catch (err) {
    if (cosmosStatus(err) === 404) {
      if (entraId) {
        const commands = [createDatabaseCommand(databaseId), ...Object.values(CONTAINERS).map((spec) => createCommand(databaseId, spec))];
        throw new ContainerSetupError(
          `Cosmos database "${databaseId}" does not exist, and ${ENTRA_ID_HINT}: ${DEPLOY_HINT}, or create them with the Azure CLI: ${commands.join('; ')}`,
          { missingOnly: true },
        );
      }
      throw new ContainerSetupError(`Cosmos database "${databaseId}" does not exist; ${DEPLOY_HINT}, or ${CREATE_CONTAINERS_HINT}`, {
        missingOnly: true,
      });
    }
    throw new CosmosRequestError(`read database ${databaseId}`, err);
  }
  return database;
}

function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
