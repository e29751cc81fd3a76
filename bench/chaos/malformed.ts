/**
 * Malformed Operation documents of every kind, written straight into the Operations container
 * (as a buggy or hostile writer would, without the frontend): missing and wrongly typed fields,
 * bad enum values, an invalid ARM id, a ~2.05 MB document and one over 2 MiB, nesting ~3,700
 * levels deep inside `externalId` (Cosmos refuses items nested deeper than 128 levels: recorded)
 * and 127 levels (the deepest it stores), `__proto__`/`constructor` keys, and quotes aimed at the
 * Clusters Service search. Each is expected to be dead-lettered exactly once, except:
 * - `quote-name-delete`: a *valid* Delete whose cluster name carries an OCM search injection
 *   (`x' and azure.resource_name = 'x`) naming a live cluster; it must settle (terminal) without
 *   touching that cluster;
 * - documents Cosmos refuses (recorded with the status it answered; nothing to dead-letter).
 */
import type { Container } from '@azure/cosmos';
import { clusterArmId, operationStatusId } from '@opstream/frontend-simulator';
import type { Target } from './frontend-requests';
import { errorText, retrying, statusOf } from './util';

export const MALFORMED_KINDS = [
  'missing-request',
  'missing-operationId',
  'missing-externalId',
  'missing-partitionKey',
  'wrong-type-status',
  'wrong-type-externalId',
  'bad-enum-request',
  'bad-enum-status',
  'status-not-of-request',
  'bad-arm-id',
  'bad-timestamp',
  'oversize-2.05MB',
  'oversize-2.2MB',
  'deep-nesting-3700',
  'deep-nesting-127',
  'proto-constructor-keys',
  'quote-in-internalId',
  'quote-name-delete',
] as const;

export type MalformedKind = (typeof MALFORMED_KINDS)[number];

export interface MalformedDocument {
  readonly kind: MalformedKind;
  readonly id: string;
  readonly partitionKey: string | undefined;
  /** Valid documents (the quote-name Delete) are expected to settle instead. */
  readonly expect: 'dead-letter' | 'settle';
  /** Cosmos' answer to the write (201, 413, …) or 0 when the write failed without one. */
  writeStatus?: number;
  /** Cosmos' message when it refused the write. */
  writeError?: string;
  /** When the write was sent. */
  writtenAt?: number;
  bytes?: number;
  /** The cluster a quote-name document aims at. */
  victim?: Target;
}

function valid(id: string, sub: string, rg: string, cluster: string, notifyBase: string): Record<string, unknown> {
  const now = new Date().toISOString();
  return {
    id,
    partitionKey: sub.toLowerCase(),
    tenantId: '00000000-0000-4000-a000-00000000bad0',
    clientId: '00000000-0000-4000-a000-00000000bad1',
    request: 'Create',
    externalId: clusterArmId(sub, rg, cluster),
    internalId: '',
    operationId: operationStatusId(sub, 'eastus', id),
    notificationUri: `${notifyBase}/notify/${id}`,
    startTime: now,
    lastTransitionTime: now,
    status: 'Accepted',
  };
}

function nested(depth: number): unknown {
  let value: unknown = '/subscriptions/x';
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
}

function padTo(doc: Record<string, unknown>, bytes: number): Record<string, unknown> {
  const out: Record<string, unknown> = { ...doc, padding: '' };
  out.padding = 'x'.repeat(Math.max(0, bytes - Buffer.byteLength(JSON.stringify(out))));
  return out;
}

/** The document of one kind; `victim` is a live cluster of the workload (quote-name only). */
export function malformedDocument(
  kind: MalformedKind,
  n: number,
  runId: string,
  sub: string,
  victim: Target,
  notifyBase: string,
): { meta: MalformedDocument; doc: Record<string, unknown> } {
  const id = `bad-${kind}-${n}-${runId}`;
  const base = valid(id, sub, `rg-bad-${runId}`, `bad${n}-${runId}`, notifyBase);
  // Invalid documents carry no notificationUri: nothing is owed to ARM for them.
  delete base.notificationUri;
  let doc: Record<string, unknown> = base;
  let expect: MalformedDocument['expect'] = 'dead-letter';
  switch (kind) {
    case 'missing-request':
    case 'missing-operationId':
    case 'missing-externalId':
    case 'missing-partitionKey':
      delete doc[kind.slice('missing-'.length)];
      break;
    case 'wrong-type-status':
      doc.status = 42;
      break;
    case 'wrong-type-externalId':
      doc.externalId = 12345;
      break;
    case 'bad-enum-request':
      doc.request = 'Explode';
      break;
    case 'bad-enum-status':
      doc.status = 'Finished';
      break;
    case 'status-not-of-request':
      doc.status = 'Deleting';
      break;
    case 'bad-arm-id':
      doc.externalId = `/subscriptions/not-a-guid/resourceGroups/rg/providers/Microsoft.RedHatOpenShift/hcpOpenShiftClusters/bad${n}`;
      break;
    case 'bad-timestamp':
      doc.startTime = 'yesterday';
      break;
    case 'oversize-2.05MB':
      delete doc.request;
      doc = padTo(doc, 2_050_000);
      break;
    case 'oversize-2.2MB':
      delete doc.request;
      doc = padTo(doc, 2_200_000);
      break;
    case 'deep-nesting-3700':
      doc.externalId = nested(3_700);
      break;
    case 'deep-nesting-127':
      // The document is level 1: 127 levels in externalId is as deep as Cosmos stores (128).
      doc.externalId = nested(127);
      break;
    case 'proto-constructor-keys': {
      delete doc.request;
      // Own keys named __proto__ / constructor, as JSON.parse makes them.
      const hostile = JSON.parse(
        '{"__proto__":{"request":"Create","status":"Accepted","polluted":true},"constructor":{"prototype":{"polluted":true}}}',
      ) as Record<string, unknown>;
      doc = { ...doc, ...hostile };
      break;
    }
    case 'quote-in-internalId':
      doc.request = 'Delete';
      doc.status = 'Deleting';
      doc.internalId = "/api/aro_hcp/v1alpha1/clusters/x' or id = 'y";
      break;
    case 'quote-name-delete': {
      const name = `${victim.cluster}' and azure.resource_name = '${victim.cluster}`;
      doc = valid(id, victim.sub, victim.rg, name, notifyBase);
      doc.request = 'Delete';
      doc.status = 'Deleting';
      expect = 'settle';
      break;
    }
  }
  const pk = typeof doc.partitionKey === 'string' ? doc.partitionKey : undefined;
  return { meta: { kind, id, partitionKey: pk, expect, ...(kind === 'quote-name-delete' ? { victim } : {}) }, doc };
}

/** Writes it (create; retried through injected faults) and records Cosmos' answer. */
export async function writeMalformed(operations: Container, meta: MalformedDocument, doc: Record<string, unknown>): Promise<void> {
  meta.bytes = Buffer.byteLength(JSON.stringify(doc));
  meta.writtenAt = Date.now();
  try {
    const res = await retrying(() => operations.items.create(doc), 60_000);
    meta.writeStatus = res.statusCode;
  } catch (err) {
    const status = statusOf(err);
    meta.writeError = errorText(err).slice(0, 200);
    // 409: an earlier attempt went through and only its answer was lost.
    meta.writeStatus = status === 409 ? 201 : (status ?? 0);
  }
}
