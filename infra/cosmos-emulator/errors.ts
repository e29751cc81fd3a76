/**
 * Cosmos-shaped failures: every error a handler throws becomes `{code, message}` with the status (and
 * `x-ms-substatus`) the real service would answer, so the SDK's retry and split logic reacts as it does
 * against Azure.
 */
export class CosmosError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly substatus?: number,
    readonly extraHeaders: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'CosmosError';
  }
}

export const SUBSTATUS_PARTITION_KEY_RANGE_GONE = 1002;

export const badRequest = (message: string): CosmosError => new CosmosError(400, 'BadRequest', message);
export const unauthorized = (message: string): CosmosError => new CosmosError(401, 'Unauthorized', message);
export const notFound = (message = 'Entity with the specified id does not exist in the system.'): CosmosError =>
  new CosmosError(404, 'NotFound', message);
export const methodNotAllowed = (method: string, path: string): CosmosError =>
  new CosmosError(405, 'MethodNotAllowed', `${method} is not supported on ${path}`);
export const conflict = (message = 'Entity with the specified id already exists in the system.'): CosmosError =>
  new CosmosError(409, 'Conflict', message);
export const preconditionFailed = (
  message = 'Operation cannot be performed because one of the specified precondition is not met.',
): CosmosError => new CosmosError(412, 'PreconditionFailed', message);
/** A continuation token this emulator did not issue: 400 with the service's "Invalid Continuation Token". */
export const invalidContinuation = (token: string): CosmosError =>
  new CosmosError(400, 'BadRequest', `Invalid Continuation Token: ${token.slice(0, 100)} is not a continuation this account issued.`);
export const tooLarge = (message = 'Request size is too large'): CosmosError => new CosmosError(413, 'RequestEntityTooLarge', message);
export const rangeGone = (rangeId: string): CosmosError =>
  new CosmosError(
    410,
    'Gone',
    `The partition key range ${rangeId} is gone (it was split); refresh the partition key ranges.`,
    SUBSTATUS_PARTITION_KEY_RANGE_GONE,
  );

export function errorBody(err: CosmosError): string {
  return JSON.stringify({ code: err.code, message: err.message });
}
