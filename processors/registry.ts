import type { OperationProcessor, ProcessorFactory } from '../src/pipeline/reconcile/processor';
import { checkRegistry } from '../src/pipeline/reconcile/router';
import { clusterCreate } from './cluster/create';
import { clusterDelete } from './cluster/delete';
import { clusterStatusFollow } from './cluster/status-follow';
import { clusterUpdate } from './cluster/update';
import { Follower } from '../src/pipeline/reconcile/follow/follower';
import { nodePoolCreate } from './node-pool/create';
import { nodePoolDelete } from './node-pool/delete';
import { nodePoolStatusFollow } from './node-pool/status-follow';
import { nodePoolUpdate } from './node-pool/update';

/** Every processor the app wires, one per resource type × request × phase, sharing one status follower. */
export const defaultProcessors: ProcessorFactory = (tools) => {
  const follower = new Follower(tools);
  const registry: OperationProcessor[] = [
    clusterCreate(follower),
    clusterStatusFollow('Create', follower),
    clusterUpdate(follower),
    clusterStatusFollow('Update', follower),
    clusterDelete(follower),
    nodePoolCreate(follower),
    nodePoolStatusFollow('Create', follower),
    nodePoolUpdate(follower),
    nodePoolStatusFollow('Update', follower),
    nodePoolDelete(follower),
  ];
  checkRegistry(registry);
  return registry;
};
