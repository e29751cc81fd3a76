import { Follower, checkRegistry, type OperationProcessor, type ProcessorFactory } from '../src/kit';
import { clusterCreate } from './cluster/create';
import { clusterDelete } from './cluster/delete';
import { ClusterLooks } from './cluster/looks';
import { clusterStatusFollow } from './cluster/status-follow';
import { clusterUpdate } from './cluster/update';
import { CredentialLooks } from './credential/looks';
import { externalAuthCreate } from './external-auth/create';
import { externalAuthDelete } from './external-auth/delete';
import { ExternalAuthLooks } from './external-auth/looks';
import { externalAuthStatusFollow } from './external-auth/status-follow';
import { externalAuthUpdate } from './external-auth/update';
import { credentialRequest } from './credential/request';
import { credentialsRevoke } from './credential/revoke';
import { nodePoolCreate } from './node-pool/create';
import { nodePoolDelete } from './node-pool/delete';
import { NodePoolLooks } from './node-pool/looks';
import { nodePoolStatusFollow } from './node-pool/status-follow';
import { nodePoolUpdate } from './node-pool/update';

/**
 * Every processor the app wires, one per resource type × request × phase, sharing one status
 * follower: the only place that lists the resource kinds. An operation no processor here handles is
 * dead-lettered as `unsupported` (docs/frontend-contract.md lists the supported set).
 */
export const defaultProcessors: ProcessorFactory = (tools) => {
  const follower = new Follower(tools);
  const clusters = new ClusterLooks(follower, tools);
  const nodePools = new NodePoolLooks(follower, tools);
  const credentials = new CredentialLooks(follower, tools);
  const externalAuths = new ExternalAuthLooks(follower, tools);
  const registry: OperationProcessor[] = [
    clusterCreate(clusters),
    clusterStatusFollow('Create', clusters),
    clusterUpdate(clusters),
    clusterStatusFollow('Update', clusters),
    clusterDelete(clusters),
    nodePoolCreate(nodePools),
    nodePoolStatusFollow('Create', nodePools),
    nodePoolUpdate(nodePools),
    nodePoolStatusFollow('Update', nodePools),
    nodePoolDelete(nodePools),
    credentialRequest(credentials),
    credentialsRevoke(credentials),
    externalAuthCreate(externalAuths),
    externalAuthStatusFollow('Create', externalAuths),
    externalAuthUpdate(externalAuths),
    externalAuthStatusFollow('Update', externalAuths),
    externalAuthDelete(externalAuths),
  ];
  checkRegistry(registry);
  return registry;
};
