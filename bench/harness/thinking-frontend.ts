/**
 * The frontend simulator with an ARM client's think time before each request: a seeded uniform
 * delay in [0, maxMs) keyed by subscription, cluster and request, so both systems get the same
 * requests at the same offsets, and the writes fall at random points of the baseline's 30 s scan
 * cycle instead of all right after one of its passes (closed-loop steps would otherwise be
 * released by a pass and land at a fixed phase of the cycle). The delay comes before the write:
 * it is not part of any measured latency.
 */
import {
  FrontendSimulator,
  seededRandom,
  type ClusterSpec,
  type FrontendOptions,
  type NodePoolSpec,
  type WrittenOperation,
} from '@opstream/frontend-simulator';
import { hashSeed } from './seeded-durations';

export class ThinkingFrontend extends FrontendSimulator {
  constructor(
    options: FrontendOptions,
    private readonly maxThinkMs: number,
    private readonly seed: number,
  ) {
    super(options);
  }

  private think(sub: string, cluster: string, what: string): Promise<void> {
    const ms = seededRandom(hashSeed(`${this.seed}|${sub}|${cluster}|${what}`))() * this.maxThinkMs;
    return new Promise((resolve) => setTimeout(resolve, ms));
  }

  override async createCluster(sub: string, rg: string, name: string, spec?: ClusterSpec): Promise<WrittenOperation> {
    await this.think(sub, name, 'createCluster');
    return super.createCluster(sub, rg, name, spec);
  }

  override async updateCluster(sub: string, rg: string, name: string, spec?: ClusterSpec): Promise<WrittenOperation> {
    await this.think(sub, name, 'updateCluster');
    return super.updateCluster(sub, rg, name, spec);
  }

  override async deleteCluster(sub: string, rg: string, name: string): Promise<WrittenOperation> {
    await this.think(sub, name, 'deleteCluster');
    return super.deleteCluster(sub, rg, name);
  }

  override async createNodePool(sub: string, rg: string, cluster: string, name: string, spec?: NodePoolSpec): Promise<WrittenOperation> {
    await this.think(sub, cluster, `createNodePool/${name}`);
    return super.createNodePool(sub, rg, cluster, name, spec);
  }

  override async updateNodePool(sub: string, rg: string, cluster: string, name: string, spec: NodePoolSpec): Promise<WrittenOperation> {
    await this.think(sub, cluster, `updateNodePool/${name}`);
    return super.updateNodePool(sub, rg, cluster, name, spec);
  }

  override async deleteNodePool(sub: string, rg: string, cluster: string, name: string): Promise<WrittenOperation> {
    await this.think(sub, cluster, `deleteNodePool/${name}`);
    return super.deleteNodePool(sub, rg, cluster, name);
  }
}
