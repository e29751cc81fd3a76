import type { ResourceType } from '../../domain/resource-types';
import type { Operation, OperationRequest } from '../../domain/types';
import type { OperationProcessor, Phase } from './processor';

/**
 * Which processor handles an operation: resource type × request × phase. The phase is read off the
 * documents, never remembered, so any instance routes a replayed operation the same way:
 * a Create is dispatched until it has a Clusters Service id, an Update until it left Accepted.
 */
export function phaseOf(op: Pick<Operation, 'request' | 'internalId' | 'status'>): Phase {
  switch (op.request) {
    case 'Create':
      return op.internalId ? 'follow' : 'dispatch';
    case 'Update':
      return op.status === 'Accepted' ? 'dispatch' : 'follow';
    default:
      return 'dispatch';
  }
}

export function route(
  registry: readonly OperationProcessor[],
  resourceType: ResourceType,
  op: Pick<Operation, 'request' | 'internalId' | 'status'>,
): OperationProcessor | undefined {
  const phase = phaseOf(op);
  return registry.find((p) => p.resourceType === resourceType && p.request === op.request && (p.phase === 'any' || p.phase === phase));
}

/** Whether any processor handles `request` on `resourceType` (at any phase). */
export function supports(registry: readonly OperationProcessor[], resourceType: ResourceType, request: OperationRequest): boolean {
  return registry.some((p) => p.resourceType === resourceType && p.request === request);
}

/** The operations the registry handles, as `resourceType request` (for messages and docs). */
export function supportedOperations(registry: readonly OperationProcessor[]): string[] {
  return [...new Set(registry.map((p) => `${p.resourceType} ${p.request}`))];
}

/** Fails fast when two processors claim the same route (a wiring mistake). */
export function checkRegistry(registry: readonly OperationProcessor[]): void {
  const seen = new Map<string, string>();
  for (const p of registry) {
    const phases = p.phase === 'any' ? ['dispatch', 'follow'] : [p.phase];
    for (const phase of phases) {
      const key = `${p.resourceType} ${p.request} ${phase}`;
      const other = seen.get(key);
      if (other) throw new Error(`processors "${other}" and "${p.name}" both handle ${key}`);
      seen.set(key, p.name);
    }
  }
}
