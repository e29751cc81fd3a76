import { readdirSync, readFileSync } from 'fs';
import { join } from 'path';
import { loadConfig } from '../../src/config/load-config';
import { parse as parseYaml } from 'yaml';
import { SETTINGS } from '../../src/config/settings';
import { hostAllowed } from '../../src/ops/host-check';
import { at, only, render, validateObject, type K8sObject } from './manifests';

/**
 * deploy/kubernetes rendered by kubectl's kustomize, every object validated against its API schema
 * offline, and the objects checked against each other and against opstream itself: the settings
 * they pass, the shutdown deadline, the probe port, the benchmark's memory figures.
 */
const OVERLAYS = ['overlays/production', 'overlays/key-auth', 'overlays/service-bus'];
const ROOT = join(__dirname, '..', '..');

interface Container {
  name: string;
  image: string;
  command?: string[];
  args?: string[];
  env?: Array<{ name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }>;
  envFrom?: Array<{ configMapRef?: { name: string }; secretRef?: { name: string } }>;
  volumeMounts?: Array<{ name: string; mountPath: string; readOnly?: boolean }>;
  ports: Array<{ name: string; containerPort: number }>;
  resources: { requests: { cpu: string; memory: string }; limits: { memory: string } };
  startupProbe: Probe;
  livenessProbe: Probe;
  readinessProbe: Probe;
  securityContext: { readOnlyRootFilesystem?: boolean; allowPrivilegeEscalation?: boolean };
}
interface Probe {
  httpGet: { path: string; port: string | number };
  periodSeconds: number;
  failureThreshold: number;
}

function opstreamContainer(objects: K8sObject[]): Container {
  return at<Container[]>(only(objects, 'StatefulSet'), 'spec.template.spec.containers').find((c) => c.name === 'opstream') as Container;
}

/** The OPSTREAM_* variables the pod gets from its ConfigMap and plain env values. */
function settingsEnv(objects: K8sObject[]): Record<string, string> {
  const container = opstreamContainer(objects);
  const env: Record<string, string> = {};
  for (const ref of container.envFrom ?? []) {
    const map = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === ref.configMapRef?.name);
    if (!map) throw new Error(`envFrom names ConfigMap ${ref.configMapRef?.name}, which is not rendered`);
    Object.assign(env, at<Record<string, string>>(map, 'data'));
  }
  for (const e of container.env ?? []) if (e.value !== undefined) env[e.name] = e.value;
  return env;
}

const mebibytes = (quantity: string): number => {
  const m = /^(\d+)(Mi|Gi)$/.exec(quantity);
  if (!m) throw new Error(`unexpected memory quantity ${quantity}`);
  return Number(m[1]) * (m[2] === 'Gi' ? 1024 : 1);
};

/** Highest peak RSS of one opstream instance in the recorded benchmarks (chaos and throughput sweep), MiB. */
function benchmarkPeakRssMiB(): number {
  const chaos = JSON.parse(readFileSync(join(ROOT, 'bench', 'results', 'chaos', 'run.json'), 'utf8')) as {
    scenarios: Array<{ figures?: { peakRssMiB?: Record<string, number> } }>;
  };
  const runsDir = join(ROOT, 'bench', 'results', 'opstream-vs-baseline');
  const runFiles = readdirSync(runsDir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => join(runsDir, f));
  const sweep = runFiles.flatMap(
    (f) => (JSON.parse(readFileSync(f, 'utf8')) as { sweep: Array<{ system: string; peakRssBytes: number }> }).sweep,
  );
  const figures = [
    ...chaos.scenarios.flatMap((s) => Object.values(s.figures?.peakRssMiB ?? {})),
    ...sweep.filter((s) => s.system === 'opstream').map((s) => s.peakRssBytes / 2 ** 20),
  ];
  expect(figures.length).toBeGreaterThan(0);
  return Math.max(...figures);
}

it('deploy/kubernetes/base renders objects that validate on their own (the overlays add endpoints, image and identities)', () => {
  for (const object of render('base')) validateObject(object);
});

describe.each(OVERLAYS)('deploy/kubernetes/%s', (kustomization) => {
  const objects = render(kustomization);

  it('renders objects that all validate against their Kubernetes, KEDA and Prometheus operator schemas', () => {
    expect(objects.map((o) => o.kind).sort()).toEqual(
      expect.arrayContaining([
        'ConfigMap',
        'PodDisruptionBudget',
        'ScaledObject',
        'Service',
        'ServiceAccount',
        'ServiceMonitor',
        'StatefulSet',
        'TriggerAuthentication',
      ]),
    );
    for (const object of objects) validateObject(object);
  });

  it('passes settings opstream accepts, and gives it longer to stop than its shutdown deadline', () => {
    const config = loadConfig({ env: { ...settingsEnv(objects), OPSTREAM_OPS_TOKEN: undefined } });
    const grace = at<number>(only(objects, 'StatefulSet'), 'spec.template.spec.terminationGracePeriodSeconds');
    // The kubelet's SIGKILL must come after opstream's own deadline, with room for the process to exit.
    expect(grace * 1000).toBeGreaterThanOrEqual(config.shutdown.timeoutMs + 2000);
    expect(config.ops.addr).toMatch(/^127\.0\.0\.1:/); // taps and the live page stay on loopback
  });

  it('probes and scrapes the listener that needs no token (ops.metricsAddr)', () => {
    const config = loadConfig({ env: settingsEnv(objects) });
    const port = Number(config.ops.metricsAddr?.split(':')[1]);
    const container = opstreamContainer(objects);
    const named = container.ports.find((p) => p.name === 'metrics');
    expect(named?.containerPort).toBe(port);
    expect(container.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'metrics' });
    expect(container.startupProbe.httpGet).toEqual({ path: '/healthz', port: 'metrics' });
    expect(container.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'metrics' });
    // Start-up retries an unavailable Cosmos DB for about two minutes before the probes answer.
    expect(container.startupProbe.periodSeconds * container.startupProbe.failureThreshold).toBeGreaterThanOrEqual(150);

    const service = only(objects, 'Service');
    const podLabels = at<Record<string, string>>(only(objects, 'StatefulSet'), 'spec.template.metadata.labels');
    expect(podLabels).toMatchObject(at<Record<string, string>>(service, 'spec.selector'));
    expect(at<Array<{ name: string; targetPort: string }>>(service, 'spec.ports')).toEqual([
      expect.objectContaining({ name: 'metrics', targetPort: 'metrics' }),
    ]);
    const monitor = only(objects, 'ServiceMonitor');
    expect(service.metadata.labels).toMatchObject(at<Record<string, string>>(monitor, 'spec.selector.matchLabels'));
    expect(at<Array<{ port: string; path: string }>>(monitor, 'spec.endpoints')).toEqual([
      expect.objectContaining({ port: 'metrics', path: '/metrics' }),
    ]);
    // Probes (httpGet without a host) and Prometheus (scraping the endpoints) send the pod IP as Host.
    // The listener has no token, so it answers only its own names: bound to a wildcard address, every
    // address of the pod is one (the pod IP below is made up; nothing is sent to it).
    const [metricsHost] = (config.ops.metricsAddr as string).split(':');
    expect(hostAllowed('10.244.1.17:9465', metricsHost as string, () => ['127.0.0.1', '10.244.1.17'])).toBe(true);
    expect(hostAllowed('rebound.attacker.example:9465', metricsHost as string, () => ['127.0.0.1', '10.244.1.17'])).toBe(false);
  });

  it('requests the memory the benchmarks measured and runs as the non-root user of the image', () => {
    const container = opstreamContainer(objects);
    const peak = benchmarkPeakRssMiB();
    expect(mebibytes(container.resources.requests.memory)).toBeGreaterThanOrEqual(peak);
    expect(mebibytes(container.resources.limits.memory)).toBeGreaterThanOrEqual(1.5 * peak);
    const heap = /--max-old-space-size=(\d+)/.exec(settingsEnv(objects).NODE_OPTIONS ?? '');
    expect(Number(heap?.[1])).toBeLessThan(mebibytes(container.resources.limits.memory));
    const pod = at<{ securityContext: { runAsNonRoot: boolean; runAsUser: number } }>(only(objects, 'StatefulSet'), 'spec.template.spec');
    expect(pod.securityContext.runAsNonRoot).toBe(true);
    const dockerfileUser = /^USER (\d+):/m.exec(readFileSync(join(ROOT, 'deploy', 'Dockerfile'), 'utf8'))?.[1];
    expect(pod.securityContext.runAsUser).toBe(Number(dockerfileUser));
    expect(container.securityContext).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false });
  });

  it('uses workload identity: labelled pods, the annotated service account', () => {
    const pods = only(objects, 'StatefulSet');
    const account = only(objects, 'ServiceAccount');
    expect(at<string>(pods, 'spec.template.spec.serviceAccountName')).toBe(account.metadata.name);
    expect(at<Record<string, string>>(pods, 'spec.template.metadata.labels')['azure.workload.identity/use']).toBe('true');
    expect(account.metadata.annotations?.['azure.workload.identity/client-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('names its pods stably (the per-replica Service Bus subscriptions are named after them) through the headless metrics Service, starting them in parallel', () => {
    const pods = only(objects, 'StatefulSet');
    const service = only(objects, 'Service');
    expect(at<string>(pods, 'spec.serviceName')).toBe(service.metadata.name);
    expect(at<string>(service, 'spec.clusterIP')).toBe('None');
    expect(at<string>(pods, 'spec.podManagementPolicy')).toBe('Parallel');
  });

  it('keeps one instance through voluntary disruptions', () => {
    const pdb = only(objects, 'PodDisruptionBudget');
    expect(at<number>(pdb, 'spec.minAvailable')).toBe(1);
    const podLabels = at<Record<string, string>>(only(objects, 'StatefulSet'), 'spec.template.metadata.labels');
    expect(podLabels).toMatchObject(at<Record<string, string>>(pdb, 'spec.selector.matchLabels'));
  });

  it('scales on the change-feed lag of the containers and processor opstream uses, at most one replica per range', () => {
    const config = loadConfig({ env: settingsEnv(objects) });
    const scaled = only(objects, 'ScaledObject');
    expect(at<{ kind: string; name: string }>(scaled, 'spec.scaleTargetRef')).toMatchObject({
      kind: 'StatefulSet',
      name: only(objects, 'StatefulSet').metadata.name,
    });
    const [trigger, ...others] = at<
      Array<{ type: string; metricType: string; metadata: Record<string, string>; authenticationRef: { name: string } }>
    >(scaled, 'spec.triggers');
    expect(others).toEqual([]);
    expect(trigger.type).toBe('azure-cosmosdb');
    // AverageValue: the scaler caps the lag it reports at (ranges with lag) x threshold.
    expect(trigger.metricType).toBe('AverageValue');
    // The containers the settings name (what `opstream run`, `leases` and `lag` open).
    expect(config.leases.endpoint).toBeUndefined(); // the trigger reads both containers through the one endpoint
    expect(trigger.metadata).toMatchObject({
      databaseId: config.cosmos.database,
      leaseDatabaseId: config.leases.database ?? config.cosmos.database,
      containerId: config.cosmos.operationsContainer,
      leaseContainerId: config.leases.container,
      processorName: config.changefeed.name,
    });
    expect(Number(trigger.metadata.activationChangeFeedLagThreshold)).toBeLessThan(Number(trigger.metadata.changeFeedLagThreshold));
    expect(at<number>(scaled, 'spec.minReplicaCount')).toBeGreaterThanOrEqual(2);
    expect(at<number>(scaled, 'spec.maxReplicaCount')).toBeGreaterThanOrEqual(at<number>(scaled, 'spec.minReplicaCount'));

    const auth = only(objects, 'TriggerAuthentication');
    expect(auth.metadata.name).toBe(trigger.authenticationRef.name);
    for (const ref of at<Array<{ name: string; containerName: string }>>(auth, 'spec.env')) {
      expect(ref.containerName).toBe('opstream');
      expect(Object.keys(settingsEnv(objects))).toContain(ref.name);
    }
  });
});

interface Volume {
  name: string;
  secret?: { secretName: string; defaultMode?: number; items?: Array<{ key: string; path: string }> };
  csi?: { driver: string; readOnly?: boolean; volumeAttributes?: Record<string, string> };
}

/** The file a mounted volume item ends up as: mountPath/path. */
function mountedFile(objects: K8sObject[], volumeName: string, path: string): string {
  const mount = opstreamContainer(objects).volumeMounts?.find((m) => m.name === volumeName);
  if (!mount) throw new Error(`volume ${volumeName} is not mounted in the opstream container`);
  expect(mount.readOnly).toBe(true);
  return `${mount.mountPath}/${path}`;
}

describe.each(OVERLAYS)('secrets in %s', (overlay) => {
  const objects = render(overlay);
  const secretSettings = SETTINGS.filter((s) => s.secret);

  it('are never environment variables nor command-line arguments: only files, named by the *File settings', () => {
    expect(secretSettings.map((s) => s.key)).toEqual(
      expect.arrayContaining([
        'cosmos.key',
        'cosmos.connectionString',
        'clustersService.token',
        'leases.key',
        'serviceBus.connectionString',
        'ops.token',
      ]),
    );
    const pods = at<{ containers: Container[]; initContainers?: Container[] }>(only(objects, 'StatefulSet'), 'spec.template.spec');
    for (const container of [...pods.containers, ...(pods.initContainers ?? [])]) {
      for (const e of container.env ?? []) {
        expect([container.name, e.name, e.valueFrom?.secretKeyRef]).toEqual([container.name, e.name, undefined]);
        expect(secretSettings.map((s) => s.env)).not.toContain(e.name);
      }
      expect((container.envFrom ?? []).filter((f) => f.secretRef)).toEqual([]);
      const argv = [...(container.command ?? []), ...(container.args ?? [])];
      for (const s of secretSettings) expect(argv.filter((a) => a === s.flag || a.startsWith(`${s.flag}=`))).toEqual([]);
    }
    // Nor in the settings ConfigMap the pod reads its environment from.
    const env = settingsEnv(objects);
    for (const s of secretSettings) expect([s.env, env[s.env]]).toEqual([s.env, undefined]);
  });

  it('are mounted 0400, readable by the pod through its fsGroup only', () => {
    // Every Secret volume is owner-read only (0400, not the default 0644); the pod's fsGroup, its own group,
    // is what lets its non-root user read the files (the kubelet adds group-read for it), and nobody else.
    const pod = at<{ volumes?: Volume[]; securityContext?: { runAsGroup?: number; fsGroup?: number } }>(
      only(objects, 'StatefulSet'),
      'spec.template.spec',
    );
    for (const v of (pod.volumes ?? []).filter((x) => x.secret))
      expect([v.name, v.secret?.defaultMode?.toString(8)]).toEqual([v.name, '400']);
    expect(pod.securityContext?.fsGroup).toBe(pod.securityContext?.runAsGroup);
  });
});

describe('overlays', () => {
  it('production mounts the Clusters Service token from Key Vault through the CSI secret store and points clustersService.tokenFile at it', () => {
    const objects = render('overlays/production');
    const provider = only(objects, 'SecretProviderClass');
    validateObject(provider);
    expect(at<string>(provider, 'spec.provider')).toBe('azure');
    const parameters = at<Record<string, string>>(provider, 'spec.parameters');
    expect(parameters).toMatchObject({
      usePodIdentity: 'false',
      clientID: expect.stringMatching(/^[0-9a-f-]{36}$/),
      keyvaultName: expect.any(String),
      tenantId: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    // Read with the pods' workload identity: the client id of their service account.
    expect(parameters.clientID).toBe(only(objects, 'ServiceAccount').metadata.annotations?.['azure.workload.identity/client-id']);
    const objectsParam = parseYaml(parameters.objects as string) as { array: string[] };
    const token = objectsParam.array
      .map((o) => parseYaml(o) as { objectName: string; objectType: string; objectAlias?: string })
      .find((o) => o.objectType === 'secret');
    expect(token?.objectName).toBeTruthy();

    const volumes = at<Volume[]>(only(objects, 'StatefulSet'), 'spec.template.spec.volumes');
    const csi = volumes.find((v) => v.csi?.volumeAttributes?.secretProviderClass === provider.metadata.name);
    expect(csi?.csi).toMatchObject({ driver: 'secrets-store.csi.k8s.io', readOnly: true });
    const file = mountedFile(objects, csi?.name as string, token?.objectAlias ?? (token?.objectName as string));
    const config = loadConfig({ env: settingsEnv(objects) });
    expect(config.clustersService.tokenFile).toBe(file);
    expect(config.clustersService.token).toBeUndefined();
  });

  it('production sets the image, the endpoints (Clusters Service over TLS) and the identities', () => {
    const objects = render('overlays/production');
    const env = settingsEnv(objects);
    expect(env.OPSTREAM_COSMOS_ENDPOINT).toMatch(/^https:\/\//);
    expect(env.OPSTREAM_CLUSTERS_SERVICE_URL).toMatch(/^https:\/\//);
    expect(opstreamContainer(objects).image).toMatch(/^[\w.-]+\/opstream:[\w.-]+$/);
    expect(at<{ provider: string; identityId: string }>(only(objects, 'TriggerAuthentication'), 'spec.podIdentity')).toEqual({
      provider: 'azure-workload',
      identityId: expect.any(String),
    });
    expect(objects.every((o) => o.kind === 'Namespace' || o.metadata.namespace === 'opstream')).toBe(true);
    expect(opstreamContainer(objects).env?.some((e) => e.name === 'OPSTREAM_COSMOS_KEY')).toBe(false);
  });

  it('key-auth gives opstream the account key as a mounted file (cosmos.keyFile) and KEDA, which only reads, a read-only key of its own Secret', () => {
    const objects = render('overlays/key-auth');
    const volumes = at<Volume[]>(only(objects, 'StatefulSet'), 'spec.template.spec.volumes');
    const key = volumes.find((v) => v.secret?.secretName === 'opstream-cosmos');
    expect(key?.secret?.items).toEqual([{ key: 'key', path: 'key' }]);
    expect(key?.secret?.defaultMode).toBe(0o400);
    const config = loadConfig({ env: settingsEnv(objects) });
    expect(config.cosmos.keyFile).toBe(mountedFile(objects, key?.name as string, 'key'));
    expect(config.cosmos.key).toBeUndefined();
    // The Clusters Service token of production stays mounted beside it.
    expect(config.clustersService.tokenFile).toMatch(/^\/var\/run\/secrets\//);
    const auth = only(objects, 'TriggerAuthentication');
    expect(at<unknown>(auth, 'spec.podIdentity')).toBeUndefined();
    expect(at<unknown>(auth, 'spec.secretTargetRef')).toEqual([{ parameter: 'cosmosDBKey', name: 'opstream-keda-cosmos', key: 'key' }]);
    const kustomization = readFileSync(join(ROOT, 'deploy', 'kubernetes', 'overlays', 'key-auth', 'kustomization.yaml'), 'utf8');
    expect(kustomization).toMatch(/opstream-keda-cosmos .*--type read-only-keys/);
  });

  it('service-bus gives every replica subscriptions of its own, those main.bicep makes for each pod of the StatefulSet', () => {
    const objects = render('overlays/service-bus');
    const env = settingsEnv(objects);
    const pods = only(objects, 'StatefulSet');
    const maxReplicas = at<number>(only(objects, 'ScaledObject'), 'spec.maxReplicaCount');
    const bicep = readFileSync(join(ROOT, 'deploy', 'azure', 'main.bicep'), 'utf8');
    const bicepDefault = (param: string): string => new RegExp(`param ${param} \\w+ = '?([\\w-]*)'?`).exec(bicep)?.[1] ?? '';
    expect(bicepDefault('statefulSetName')).toBe(pods.metadata.name);
    expect(Number(bicepDefault('maxReplicas'))).toBe(maxReplicas);
    for (let i = 0; i < maxReplicas; i++) {
      const config = loadConfig({ env, hostname: `${pods.metadata.name}-${i}` });
      expect(config.serviceBus.namespace).toMatch(/\.servicebus\.windows\.net$/);
      expect(config.serviceBus.hints).toBe(true);
      // What bicep names '${statefulSetName}-${i}' on each topic of events in.
      expect(config.serviceBus.clustersServiceSubscription).toBe(`${pods.metadata.name}-${i}`);
      expect(config.serviceBus.hintsSubscription).toBe(`${pods.metadata.name}-${i}`);
    }
    expect(opstreamContainer(objects).env?.some((e) => e.name === 'OPSTREAM_SERVICE_BUS_CONNECTION_STRING')).toBe(false);
  });
});

interface PolicyPeer {
  namespaceSelector?: { matchLabels?: Record<string, string> };
  podSelector?: { matchLabels?: Record<string, string> };
  ipBlock?: { cidr: string; except?: string[] };
}
interface PolicyRule {
  from?: PolicyPeer[];
  to?: PolicyPeer[];
  ports?: Array<{ port: number | string; protocol: string }>;
}

describe.each(OVERLAYS)('the NetworkPolicy of %s', (overlay) => {
  const objects = render(overlay);
  const netpol = only(objects, 'NetworkPolicy');
  const ingress = at<PolicyRule[]>(netpol, 'spec.ingress');
  const egress = at<PolicyRule[]>(netpol, 'spec.egress');
  const ports = (rules: PolicyRule[]): Array<number | string> => rules.flatMap((r) => (r.ports ?? []).map((p) => p.port));

  it("selects opstream's pods and restricts both directions", () => {
    const podLabels = at<Record<string, string>>(only(objects, 'StatefulSet'), 'spec.template.metadata.labels');
    for (const [k, v] of Object.entries(at<Record<string, string>>(netpol, 'spec.podSelector.matchLabels'))) expect(podLabels[k]).toBe(v);
    expect(at<string[]>(netpol, 'spec.policyTypes').sort()).toEqual(['Egress', 'Ingress']);
  });

  it('lets in only the probes/metrics port, from the monitoring namespace', () => {
    expect(ports(ingress)).toEqual(['metrics']);
    expect(opstreamContainer(objects).ports.map((p) => p.name)).toContain('metrics');
    expect(ingress.flatMap((r) => r.from ?? []).map((p) => p.namespaceSelector?.matchLabels?.['kubernetes.io/metadata.name'])).toEqual([
      'monitoring',
    ]);
  });

  it('lets out DNS, Clusters Service on its port, and TLS to public addresses only (never the instance metadata endpoint)', () => {
    expect(ports(egress)).toEqual(expect.arrayContaining([53, 443]));
    const csPort = Number(new URL(settingsEnv(objects).OPSTREAM_CLUSTERS_SERVICE_URL ?? 'https://x:8443').port || 443);
    expect(ports(egress)).toContain(csPort);
    const publicRules = egress.filter((r) => r.to?.some((p) => p.ipBlock));
    expect(ports(publicRules).every((p) => p === 443 || p === 5671)).toBe(true);
    for (const block of publicRules.flatMap((r) => r.to ?? []).map((p) => p.ipBlock)) {
      expect(block?.except).toEqual(
        expect.arrayContaining(['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '169.254.0.0/16', '127.0.0.0/8']),
      );
    }
  });
});
