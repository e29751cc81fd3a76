import type { OperationProcessor } from '../src/pipeline/operation-processor';
import { checkRegistry } from '../src/pipeline/router';
import { clusterCreate } from './cluster-create';
import { clusterDelete } from './cluster-delete';
import { clusterStatusFollow } from './cluster-status-follow';
import { clusterUpdate } from './cluster-update';
import { nodePoolCreate } from './node-pool-create';
import { nodePoolDelete } from './node-pool-delete';
import { nodePoolStatusFollow } from './node-pool-status-follow';
import { nodePoolUpdate } from './node-pool-update';

/** Every processor the app wires, one per resource type × request × phase. */
export function defaultProcessors(): OperationProcessor[] {
  const registry = [
    clusterCreate,
    clusterStatusFollow('Create'),
    clusterUpdate,
    clusterStatusFollow('Update'),
    clusterDelete,
    nodePoolCreate,
    nodePoolStatusFollow('Create'),
    nodePoolUpdate,
    nodePoolStatusFollow('Update'),
    nodePoolDelete,
  ];
  checkRegistry(registry);
  return registry;
}
