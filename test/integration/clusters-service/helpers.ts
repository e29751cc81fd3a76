import { randomUUID } from 'node:crypto';
import type { AzureIdentity } from '../../../src/clusters-service';
import { azureFields } from '../../../src/clusters-service';
import type { CsClusterCreateRequest } from '../../../src/domain/types.generated';
import { uniqueName } from '../../helpers/wait-for';

/** A fresh Azure identity (random subscription) so tests never see each other's clusters. */
export function newIdentity(overrides: Partial<AzureIdentity> = {}): AzureIdentity {
  return {
    subscriptionId: randomUUID().toUpperCase(),
    resourceGroupName: 'RG-Tests',
    resourceName: uniqueName('Cluster'),
    tenantId: randomUUID(),
    managedResourceGroupName: 'RG-Tests-Managed',
    ...overrides,
  };
}

export function createBody(identity: AzureIdentity, id?: string): CsClusterCreateRequest {
  return {
    ...(id === undefined ? {} : { id }),
    name: identity.resourceName.toLowerCase().slice(0, 50),
    region: { id: 'eastus' },
    version: { id: 'openshift-v4.18.1' },
    azure: azureFields(identity),
  };
}

/** A CS-style id chosen by the caller. */
export function newClusterId(): string {
  return randomUUID().replace(/-/g, '');
}

/** The error a promise rejects with (fails the test if it resolves). */
export async function failureOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected the call to fail, but it succeeded');
}

/** An `/_admin` call over HTTP with the admin token, as an out-of-process test makes it. */
export async function adminCall(
  sim: { readonly url: string; readonly adminToken: string },
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; json: unknown }> {
  const res = await fetch(`${sim.url}/_admin${path}`, {
    method,
    headers: { authorization: `Bearer ${sim.adminToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? (JSON.parse(text) as unknown) : undefined };
}
