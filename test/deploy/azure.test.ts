import { readFileSync } from 'fs';
import { join } from 'path';
import { loadConfig } from '../../src/config/load-config';
import { CONTAINERS, type ContainerSpec } from '../../src/cosmos/containers';

/**
 * deploy/azure: no Bicep compiler runs here, so what can be checked without one is checked: the
 * containers the template creates (deploy/azure/containers.json, loaded by main.bicep) are the ones
 * `opstream run` verifies at start (src/cosmos/containers.ts), and the template reads that file
 * and keeps key authentication off by default.
 */
const AZURE = join(__dirname, '..', '..', 'deploy', 'azure');

interface TemplateContainer {
  id: string;
  partitionKeyPath: string;
  defaultTtl?: number;
  indexingPolicy: { indexingMode: string; includedPaths: Array<{ path: string }>; excludedPaths: Array<{ path: string }> };
}

const template = JSON.parse(readFileSync(join(AZURE, 'containers.json'), 'utf8')) as { containers: TemplateContainer[] };
const bicep = readFileSync(join(AZURE, 'main.bicep'), 'utf8');

describe('deploy/azure', () => {
  it.each(Object.values(CONTAINERS).map((spec: ContainerSpec) => [spec.id, spec] as const))(
    'creates %s with the partition key and TTL opstream run verifies',
    (id, spec) => {
      const found = template.containers.find((c) => c.id === id);
      if (!found) throw new Error(`deploy/azure/containers.json has no container ${id}: add it as src/cosmos/containers.ts defines it`);
      expect({ id: found.id, partitionKeyPath: found.partitionKeyPath, defaultTtl: found.defaultTtl }).toEqual({
        id: spec.id,
        partitionKeyPath: spec.partitionKeyPath,
        defaultTtl: spec.defaultTtl,
      });
    },
  );

  it('creates no container opstream does not use', () => {
    expect(template.containers.map((c) => c.id).sort()).toEqual(
      Object.values(CONTAINERS)
        .map((c) => c.id)
        .sort(),
    );
  });

  it("names each container by the parameter of its setting, whose default is the setting's default", () => {
    const defaults = loadConfig({ env: {} });
    const param = (name: string): string | undefined => new RegExp(`^param ${name} string = '([^']*)'$`, 'm').exec(bicep)?.[1];
    const bySetting: Record<string, [string, string]> = {
      operations: ['operationsContainerName', defaults.cosmos.operationsContainer],
      resources: ['resourcesContainerName', defaults.cosmos.resourcesContainer],
      subscriptions: ['subscriptionsContainerName', defaults.cosmos.subscriptionsContainer],
      locks: ['locksContainerName', defaults.cosmos.locksContainer],
      deadLetters: ['deadLettersContainerName', defaults.cosmos.deadLettersContainer],
      leases: ['leasesContainerName', defaults.leases.container],
    };
    const keys = (template.containers as Array<TemplateContainer & { key: string }>).map((c) => c.key).sort();
    expect(keys).toEqual(Object.keys(bySetting).sort());
    for (const [key, [name, value]] of Object.entries(bySetting)) {
      expect([name, param(name)]).toEqual([name, value]);
      expect(bicep).toMatch(new RegExp(`^  ${key}: ${name}$`, 'm'));
      // Each entry's id is the default name, the one src/cosmos/containers.ts knows.
      expect((template.containers as Array<TemplateContainer & { key: string }>).find((c) => c.key === key)?.id).toBe(value);
    }
    expect(bicep).toMatch(/name: containerNames\[c\.key\][\s\S]*?id: containerNames\[c\.key\]/);
  });

  it('puts the leases in a database or an account of their own when asked (leases.database, leases.endpoint), with the same roles there', () => {
    expect(bicep).toMatch(/^param leaseDatabaseName string = databaseName$/m);
    expect(bicep).toMatch(/^param leaseAccountName string = ''$/m);
    expect(bicep).toMatch(
      /resource leaseAccount 'Microsoft\.DocumentDB\/databaseAccounts@[^']+' = if \(separateLeaseAccount\)[\s\S]*?disableLocalAuth: disableLocalAuth/,
    );
    expect(bicep).toMatch(
      /resource leaseDatabase '[^']+' = if \(leaseDatabaseOfItsOwn\) \{\s*name: '\$\{leaseAccountActualName\}\/\$\{leaseDatabaseName\}'/,
    );
    expect(bicep).toMatch(
      /resource leasesContainer '[^']+' = \{\s*name: '\$\{leaseAccountActualName\}\/\$\{leaseDatabaseName\}\/\$\{leasesContainerName\}'/,
    );
    expect(bicep).toMatch(/resource leaseWorkloadRole [\s\S]*?parent: leaseAccount[\s\S]*?dataContributorRoleId/);
    expect(bicep).toMatch(/resource leaseKedaRole [\s\S]*?parent: leaseAccount[\s\S]*?dataReaderRoleId/);
    expect(bicep).toMatch(/output leaseEndpoint string = separateLeaseAccount \? leaseAccount\.properties\.documentEndpoint : ''/);
  });

  it('spans the regions given, in failover order, and outputs them as cosmos.preferredLocations accepts them', () => {
    expect(bicep).toMatch(/^param regions array = \[\]$/m);
    expect(bicep).toMatch(/map\(range\(0, length\(regions\)\), i => \{ locationName: regions\[i\], failoverPriority: i,/);
    expect(bicep).toMatch(/locations: accountLocations/);
    expect(bicep).toMatch(/output preferredLocations string = join\(regions, ','\)/);
    // The output is a value the setting takes.
    expect(
      loadConfig({ env: { OPSTREAM_COSMOS_PREFERRED_LOCATIONS: ['East US 2', 'West US 2'].join(',') } }).cosmos.preferredLocations,
    ).toBe('East US 2,West US 2');
  });

  it('lets the workload identity read the Clusters Service token in Key Vault, which the production overlay mounts', () => {
    expect(bicep).toMatch(/var keyVaultSecretsUserRoleId = '4633458b-17de-408a-b874-0445c86b69e6'/);
    expect(bicep).toMatch(/scope: keyVault\s*name: guid\(keyVault\.id, identity\.id, keyVaultSecretsUserRoleId\)/);
  });

  it('indexes consistently, leaving out only paths no query of opstream filters on', () => {
    for (const c of template.containers) {
      expect(c.indexingPolicy.indexingMode).toBe('consistent');
      expect(c.indexingPolicy.includedPaths).toEqual([{ path: '/*' }]);
    }
    // What opstream queries by (src/ and processors/): never excluded.
    const queried = ['/status', '/notificationUri', '/resourceId', '/id', '/partitionKey'];
    for (const c of template.containers) {
      for (const { path } of c.indexingPolicy.excludedPaths) for (const q of queried) expect(path.startsWith(`${q}/`)).toBe(false);
    }
  });

  it('main.bicep builds every container from containers.json with hash v2 partition keys (what @opstream/changefeed computes)', () => {
    expect(bicep).toMatch(/loadJsonContent\('containers\.json'\)\.containers/);
    expect(bicep).toMatch(/var mainContainers = filter\(containers, c => c\.key != 'leases'\)/);
    expect(bicep).toMatch(/for c in mainContainers:/);
    expect(bicep).toMatch(/paths: \[c\.partitionKeyPath\][\s\S]*?kind: 'Hash'[\s\S]*?version: 2/);
    expect(bicep).toMatch(/contains\(c, 'defaultTtl'\) \? \{ defaultTtl: c\.defaultTtl \}/);
    // The lease container, apart: from its own entry of containers.json, likewise.
    expect(bicep).toMatch(/var leaseContainer = first\(filter\(containers, c => c\.key == 'leases'\)\)/);
    expect(bicep).toMatch(/paths: \[leaseContainer\.partitionKeyPath\][\s\S]*?kind: 'Hash'[\s\S]*?version: 2/);
    expect(bicep).toMatch(/contains\(leaseContainer, 'defaultTtl'\) \? \{ defaultTtl: leaseContainer\.defaultTtl \}/);
    expect(readFileSync(join(__dirname, '..', '..', 'src', 'changefeed', 'util', 'epk.ts'), 'utf8')).toMatch(/hash version 2/);
  });

  it('main.bicep turns key authentication off by default and gives the workload and KEDA data-plane roles', () => {
    expect(bicep).toMatch(/param disableLocalAuth bool = true/);
    expect(bicep).toMatch(/disableLocalAuth: disableLocalAuth/);
    expect(bicep).toMatch(/sqlRoleAssignments@[\s\S]*?dataContributorRoleId/);
    expect(bicep).toMatch(/var dataContributorRoleId = '00000000-0000-0000-0000-000000000002'/);
    expect(bicep).toMatch(/var dataReaderRoleId = '00000000-0000-0000-0000-000000000001'/);
    expect(bicep).toMatch(/subject: 'system:serviceaccount:\$\{serviceAccountNamespace\}:\$\{serviceAccountName\}'/);
  });

  it('main.bicep makes the Service Bus entities opstream reads and writes, under the names its settings default to, with local auth off and the data roles each direction needs', () => {
    const defaults = loadConfig({ env: {} }).serviceBus;
    const topic = (variable: string): string | undefined => new RegExp(`var ${variable} = '([^']+)'`).exec(bicep)?.[1];
    expect(topic('csEventsTopicName')).toBe(defaults.clustersServiceTopic);
    expect(topic('operationEventsTopicName')).toBe(defaults.operationEventsTopic);
    expect(topic('hintsTopicName')).toBe(defaults.hintsEntity);
    expect(bicep).toMatch(/Microsoft\.ServiceBus\/namespaces@[\s\S]*?disableLocalAuth: true/);
    // One subscription per replica on each topic of events in, named after the StatefulSet's pods.
    for (const parent of ['csEventsTopic', 'hintsTopic']) {
      expect(bicep).toMatch(
        new RegExp(
          `for i in range\\(0, maxReplicas\\): if \\(serviceBus\\) \\{\\s*parent: ${parent}\\s*name: '\\$\\{statefulSetName\\}-\\$\\{i\\}'`,
        ),
      );
    }
    expect(bicep).toMatch(/requiresDuplicateDetection: true/);
    // Built-in roles: Azure Service Bus Data Receiver and Data Sender.
    expect(bicep).toMatch(/var serviceBusReceiverRoleId = '4f6d3b9b-027b-4f4c-9142-0e5a2a2247e0'/);
    expect(bicep).toMatch(/var serviceBusSenderRoleId = '69a216fc-b8fb-44d8-bc22-1f3c2cd27a39'/);
    const assignment = (scope: string, role: string): RegExp =>
      new RegExp(`scope: ${scope}\\s*name: guid\\(${scope}\\.id, identity\\.id, ${role}\\)`);
    expect(bicep).toMatch(assignment('csEventsTopic', 'serviceBusReceiverRoleId'));
    expect(bicep).toMatch(assignment('hintsTopic', 'serviceBusReceiverRoleId'));
    expect(bicep).toMatch(assignment('operationEventsTopic', 'serviceBusSenderRoleId'));
  });
});
