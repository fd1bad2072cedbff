// Wires the node registry: the service (NodeDirectory for the cluster feature), this node's registration
// once the server listens and its heartbeats, the loss sweeper, and the operator routes.
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import type { Storage } from '../core/db/database.js';
import { NodeHeartbeat } from './heartbeat.js';
import { LossSweeper } from './loss.js';
import type { LiveSandboxes, LostSandboxes, OperatorCheck, SandboxReconcile } from './ports.js';
import { nodeRoutes } from './routes.js';
import { NodeService } from './service.js';

export interface NodesDeps {
  config: Config;
  storage: Storage;
  /** The runtime's name (`runc`, `gvisor`); null on a server without a runtime. */
  runtimeName: string | null;
  live: LiveSandboxes;
  /** The sandbox service's restart reconcile; null without a runtime. */
  reconcile: SandboxReconcile | null;
  /** Moves a lost node's sandboxes to error: every node sweeps, with or without a runtime. */
  lost: LostSandboxes;
  operators: OperatorCheck;
}

export interface NodesFeature {
  service: NodeService;
  heartbeat: NodeHeartbeat;
  sweeper: LossSweeper;
  /** Resolves once this node tried its first registration (the server listens); servers and tests await it after listen(). */
  registered(): Promise<void>;
}

export async function registerNodes(app: FastifyInstance, deps: NodesDeps): Promise<NodesFeature> {
  const { config, storage } = deps;
  const service = new NodeService(storage.db, { selfId: config.hostId, deadAfterSeconds: config.cluster.deadAfterSeconds }, deps.operators);
  const heartbeat = new NodeHeartbeat({
    db: storage.db,
    hostId: config.hostId,
    dataDir: config.dataDir,
    cluster: config.cluster,
    runtimeName: deps.runtimeName,
    live: deps.live,
    reconcile: deps.reconcile,
    log: app.log,
  });
  await app.register(nodeRoutes(service));
  app.addHook('onListen', async () => {
    void heartbeat.start(app.server.address());
  });
  const sweeper = new LossSweeper({
    db: storage.db,
    selfId: config.hostId,
    deadAfterSeconds: config.cluster.deadAfterSeconds,
    intervalMs: config.cluster.heartbeatMs,
    sandboxes: deps.lost,
    healthyForMs: (now) => heartbeat.healthyForMs(now),
    log: app.log,
  });
  app.addHook('onReady', async () => sweeper.start());
  app.addHook('onClose', async () => {
    await sweeper.stop();
    await heartbeat.stop();
  });
  return { service, heartbeat, sweeper, registered: () => heartbeat.registered() };
}
