/** Request bodies are checked against the same schemas the client is typed by (schemas/cs-*.schema.json). */
import Ajv, { type ValidateFunction } from 'ajv';
import csBreakGlassCredential from '@opstream/schemas/cs-break-glass-credential.schema.json';
import csClusterCreate from '@opstream/schemas/cs-cluster-create.schema.json';
import csClusterUpdate from '@opstream/schemas/cs-cluster-update.schema.json';
import csCommon from '@opstream/schemas/cs-common.schema.json';
import csExternalAuthCreate from '@opstream/schemas/cs-external-auth-create.schema.json';
import csExternalAuthUpdate from '@opstream/schemas/cs-external-auth-update.schema.json';
import csExternalAuth from '@opstream/schemas/cs-external-auth.schema.json';
import csNodePoolCreate from '@opstream/schemas/cs-node-pool-create.schema.json';
import csNodePoolUpdate from '@opstream/schemas/cs-node-pool-update.schema.json';
import { OcmError } from './ocm-errors';
import type { Json } from './store';

export type RequestKind =
  | 'clusterCreate'
  | 'clusterUpdate'
  | 'nodePoolCreate'
  | 'nodePoolUpdate'
  | 'credentialRequest'
  | 'externalAuthCreate'
  | 'externalAuthUpdate';

let validators: Record<RequestKind, ValidateFunction> | undefined;

function compile(): Record<RequestKind, ValidateFunction> {
  // Only request bodies are checked: the answers' date-time formats need no checking here.
  const ajv = new Ajv({ allErrors: false, strict: true, strictRequired: false, formats: { 'date-time': true } });
  ajv.addSchema(csCommon);
  ajv.addSchema(csBreakGlassCredential);
  ajv.addSchema(csExternalAuth);
  const credentialRequest = ajv.getSchema(`${csBreakGlassCredential.$id}#/definitions/request`);
  if (!credentialRequest) throw new Error('the break-glass credential request schema did not compile');
  return {
    credentialRequest,
    externalAuthCreate: ajv.compile(csExternalAuthCreate),
    externalAuthUpdate: ajv.compile(csExternalAuthUpdate),
    clusterCreate: ajv.compile(csClusterCreate),
    clusterUpdate: ajv.compile(csClusterUpdate),
    nodePoolCreate: ajv.compile(csNodePoolCreate),
    nodePoolUpdate: ajv.compile(csNodePoolUpdate),
  };
}

/** Returns the body as an object, or throws a 400 OcmError naming the first problem. */
export function checkBody(kind: RequestKind, body: unknown): Json {
  validators ??= compile();
  const validate = validators[kind];
  if (validate(body)) return body as Json;
  const err = validate.errors?.[0];
  const params = (err?.params ?? {}) as Record<string, unknown>;
  const where = err?.keyword === 'required' ? `${err.instancePath}/${String(params.missingProperty)}` : (err?.instancePath ?? '');
  const field = where === '' ? 'body' : `body${where.replace(/\//g, '.')}`;
  throw new OcmError(400, `${field} ${err?.keyword === 'required' ? 'is required' : (err?.message ?? 'is invalid')}`);
}
