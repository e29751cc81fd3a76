import { randomBytes } from 'node:crypto';
import type { Container } from '@azure/cosmos';
import { cosmosStatus } from '../cosmos/errors';
import { CosmosAccessDeniedError, isMissingDataRole, refusalParts } from '../auth/cosmos-auth';
import { describeRefusal } from './permission-watch';

/**
 * Under Entra ID, whether the identity may write where opstream writes, before anything starts: an
 * identity with a read-only role (Data Reader) or a role scoped to other containers would otherwise
 * run, take no lease, change nothing and look healthy. Each container gets one harmless write: the
 * replace of an item that does not exist, which Cosmos DB answers 404 when the role allows the write
 * and 403 (substatus 5302) when it does not — it authorises before it looks the item up. The replace
 * is conditional on an etag no item has, so even an item of that id would never be written.
 */
const NO_SUCH_ETAG = '"opstream-access-check"';

export async function checkDataAccess(containers: readonly Container[]): Promise<void> {
  const id = `opstream-access-check-${randomBytes(6).toString('hex')}`;
  const refused = await Promise.all(
    containers.map(async (container) => {
      try {
        await container.item(id, id).replace({ id, partitionKey: id }, { accessCondition: { type: 'IfMatch', condition: NO_SUCH_ETAG } });
        return undefined;
      } catch (err) {
        const substatus = (err as { substatus?: unknown }).substatus;
        // 404 (or 412): allowed. Anything else is not this check's to judge: start-up goes on and meets it there.
        if (!isMissingDataRole(cosmosStatus(err), typeof substatus === 'number' ? substatus : undefined)) return undefined;
        return { container: container.id, substatus: substatus as number, ...refusalParts((err as Error).message), cause: err };
      }
    }),
  );
  const denied = refused.filter((r) => r !== undefined);
  if (denied.length === 0) return;
  const first = denied[0];
  const names = denied.map((r) => r.container).join(', ');
  throw new CosmosAccessDeniedError(
    `this identity may not write to ${names}, where opstream writes leases, operations and locks; ${describeRefusal({ ...first, operation: 'replace' })}`,
    { cause: first.cause },
  );
}
