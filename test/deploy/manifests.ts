import { execFileSync } from 'child_process';
import { join } from 'path';
import { parseAllDocuments } from 'yaml';
import * as core from 'kubernetes-models/v1';
import * as apps from 'kubernetes-models/apps/v1';
import * as policy from 'kubernetes-models/policy/v1';
import * as networking from 'kubernetes-models/networking.k8s.io/v1';
import * as keda from '@kubernetes-models/keda/keda.sh/v1alpha1';
import * as monitoring from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1';
import Ajv from 'ajv';

/** A rendered Kubernetes object, as plain JSON. */
export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: unknown;
}

export const KUBERNETES_DIR = join(__dirname, '..', '..', 'deploy', 'kubernetes');

/**
 * Renders a kustomization with kubectl's built-in kustomize (the renderer `kubectl apply -k` uses),
 * offline: every input is a local file.
 */
export function render(kustomization: string): K8sObject[] {
  let out: string;
  try {
    out = execFileSync('kubectl', ['kustomize', join(KUBERNETES_DIR, kustomization)], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { stderr?: string };
    if (e.code === 'ENOENT')
      throw new Error(
        'kubectl not found on PATH: the deploy tests render deploy/kubernetes with `kubectl kustomize` (kubectl 1.14 or later)',
        { cause: err },
      );
    throw new Error(`kubectl kustomize ${kustomization} failed: ${e.stderr ?? e.message}`, { cause: err });
  }
  return parseAllDocuments(out).map((doc) => {
    if (doc.errors.length) throw new Error(`kubectl kustomize ${kustomization}: ${doc.errors[0].message}`);
    return doc.toJSON() as K8sObject;
  });
}

type ModelClass = new (data: unknown) => { validate(): void };

/** The model modules by apiVersion: Kubernetes itself, KEDA and the Prometheus operator. */
const MODEL_MODULES: Record<string, Record<string, unknown>> = {
  v1: core,
  'apps/v1': apps,
  'policy/v1': policy,
  'networking.k8s.io/v1': networking,
  'keda.sh/v1alpha1': keda,
  'monitoring.coreos.com/v1': monitoring,
};

/**
 * The Secrets Store CSI driver's SecretProviderClass (secrets-store.csi.x-k8s.io/v1), which no
 * kubernetes-models package covers: the fields of its CRD's schema that the overlays use, strictly
 * (parameters are strings, as the CRD has them).
 */
const SECRET_PROVIDER_CLASS = new Ajv({ allErrors: true }).compile({
  type: 'object',
  required: ['apiVersion', 'kind', 'metadata', 'spec'],
  properties: {
    spec: {
      type: 'object',
      additionalProperties: false,
      required: ['provider'],
      properties: {
        provider: { type: 'string', minLength: 1 },
        parameters: { type: 'object', additionalProperties: { type: 'string' } },
        secretObjects: {
          type: 'array',
          items: {
            type: 'object',
            required: ['secretName', 'type', 'data'],
            properties: {
              secretName: { type: 'string' },
              type: { type: 'string' },
              data: { type: 'array', items: { type: 'object', required: ['key', 'objectName'] } },
            },
          },
        },
      },
    },
  },
});

/** Validates an object against its API schema (kubernetes-models); throws naming the object and the field. */
export function validateObject(object: K8sObject): void {
  if (object.apiVersion === 'secrets-store.csi.x-k8s.io/v1' && object.kind === 'SecretProviderClass') {
    if (!SECRET_PROVIDER_CLASS(object))
      throw new Error(`SecretProviderClass ${object.metadata.name}: ${JSON.stringify(SECRET_PROVIDER_CLASS.errors)}`);
    return;
  }
  const module = MODEL_MODULES[object.apiVersion];
  const Model = module?.[object.kind] as ModelClass | undefined;
  if (!Model) throw new Error(`${object.apiVersion} ${object.kind} ${object.metadata.name}: no schema to validate it against`);
  try {
    new Model(object).validate();
  } catch (err) {
    throw new Error(`${object.kind} ${object.metadata.name}: ${(err as Error).message}`, { cause: err });
  }
}

export function only(objects: K8sObject[], kind: string): K8sObject {
  const found = objects.filter((o) => o.kind === kind);
  if (found.length !== 1) throw new Error(`expected one ${kind}, found ${found.length}`);
  return found[0];
}

/** Reads a dotted path (`spec.template.spec`) of a rendered object. */
export function at<T>(object: unknown, path: string): T {
  let cur: unknown = object;
  for (const key of path.split('.')) {
    if (cur === null || typeof cur !== 'object') throw new Error(`no ${path}`);
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur as T;
}
