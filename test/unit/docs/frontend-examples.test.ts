import { readFileSync } from 'fs';
import { join } from 'path';
import { resourceDocumentId } from '../../../src/domain/ids';
import { SCHEMAS, type SchemaKind } from '../../../src/schemas/catalog';
import { validate } from '../../../src/schemas/validator';

/**
 * The JSON examples of docs/frontend-contract.md are documents opstream accepts: each block after a
 * `<!-- schema: kind -->` comment validates as that kind, and the Resource and Operation examples
 * belong together as the page says they must (derived id, active operation, ARM ids).
 */
const PAGE = readFileSync(join(__dirname, '..', '..', '..', 'docs', 'frontend-contract.md'), 'utf8');
const examples = [...PAGE.matchAll(/<!-- schema: (\w+) -->\n```json\n([\s\S]*?)\n```/g)].map((m) => ({
  kind: m[1],
  document: JSON.parse(m[2]) as Record<string, unknown>,
}));
const example = (kind: string): Record<string, unknown> => examples.find((e) => e.kind === kind)?.document ?? {};

describe('docs/frontend-contract.md examples', () => {
  it('has an example of each document the frontend writes', () => {
    expect(examples.map((e) => e.kind).sort()).toEqual([
      'lock',
      'operation',
      'operation',
      'operation',
      'resource',
      'resource',
      'resource',
      'subscription',
    ]);
  });

  it('every Resource example is stored under its derived id (a new cluster, a node pool Update, an external auth)', () => {
    for (const e of examples.filter((x) => x.kind === 'resource'))
      expect(e.document.id).toBe(resourceDocumentId(String(e.document.resourceId)));
  });

  it.each(examples.map((e) => [e.kind, e] as const))('the %s example validates against its schema', (kind, e) => {
    expect(Object.keys(SCHEMAS)).toContain(kind);
    expect(() => validate(kind as SchemaKind, e.document)).not.toThrow();
  });

  it('the Resource and the Operation belong together', () => {
    const resource = example('resource');
    const operation = example('operation');
    expect(resource.id).toBe(resourceDocumentId(String(resource.resourceId)));
    expect(operation.externalId).toBe(resource.resourceId);
    expect(resource.activeOperationId).toBe(operation.id);
    expect(String(operation.operationId).split('/').pop()).toBe(operation.id);
    expect([resource.partitionKey, example('lock').id, example('subscription').id]).toEqual([
      operation.partitionKey,
      operation.partitionKey,
      operation.partitionKey,
    ]);
  });

  it('the external auth’s Resource and Operation belong together, under the cluster of the first example', () => {
    const resources = examples.filter((e) => e.kind === 'resource').map((e) => e.document);
    const resource = resources.find((r) => r.resourceType === 'Microsoft.RedHatOpenShift/hcpOpenShiftClusters/externalAuths') ?? {};
    const operation = examples.find((e) => e.kind === 'operation' && e.document.externalId === resource.resourceId)?.document ?? {};
    expect(resource.id).toBe(resourceDocumentId(String(resource.resourceId)));
    expect(resource.activeOperationId).toBe(operation.id);
    expect(String(resource.resourceId).startsWith(`${String(example('resource').resourceId)}/externalAuths/`)).toBe(true);
    expect(String(operation.operationId).split('/').pop()).toBe(operation.id);
  });
});
