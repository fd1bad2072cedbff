// Wires agent delegation into the app: the registry (agents/) and its open discovery, tasks (tasks/)
// with the run follower pipelines call in every run transition; the other parts (stream, webhooks,
// protocol) add their lines here.
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import type { Principal } from '../core/access.js';
import type { Storage } from '../core/db/database.js';
import type { Outbox } from '../core/outbox/outbox.js';
import type { LimiterFactory } from '../core/rate-limit.js';
import type { PipelinesFeature } from '../pipelines/plugin.js';
import { discoveryRoutes } from './agents/discovery-routes.js';
import { agentRoutes } from './agents/routes.js';
import { registerA2aProtocol } from './protocol/plugin.js';
import { AgentService, type AgentPipelines } from './agents/service.js';
import { registerTaskStream } from './stream/plugin.js';
import type { StreamSlots } from './stream/slots.js';
import { registerTaskWebhooks } from './webhooks/plugin.js';
import type { TaskWebhookService } from './webhooks/service.js';
import { TaskSignals } from './task-signals.js';
import { TaskBudgets, type TaskCosts } from './tasks/budget.js';
import { TaskFollower } from './tasks/follower.js';
import { TaskLimits } from './tasks/limits.js';
import { taskRoutes } from './tasks/routes.js';
import { Tasks, type TaskRuns } from './tasks/service.js';
import { TaskChangePublishers, TaskLog } from './tasks/task-log.js';

/** What must exist before pipelines register: the run follower is one of their run observers. */
export interface A2aCore {
  signals: TaskSignals;
  /** Task webhooks and A2A push add their TaskChangePublisher here. */
  publishers: TaskChangePublishers;
  follower: TaskFollower;
  log: TaskLog;
}

export function createA2aCore(): A2aCore {
  const signals = new TaskSignals();
  const publishers = new TaskChangePublishers();
  const log = new TaskLog(signals, publishers);
  return { signals, publishers, log, follower: new TaskFollower(log) };
}

export interface A2aFeature {
  /** The registry; implements AgentDirectory for tasks and the protocol binding. */
  agents: AgentService;
  /** Implements TaskService. */
  tasks: Tasks;
  /** Wakes readers of a task's event log after each commit that appended to it. */
  signals: TaskSignals;
  publishers: TaskChangePublishers;
  /** Task webhooks (account-level subscriptions to task status changes). */
  taskWebhooks: TaskWebhookService;
  /** The open task streams, one per task. */
  streamSlots: StreamSlots;
}

export interface A2aOptions {
  config: Config;
  storage: Storage;
  /** The pipelines feature's PipelineService. */
  pipelines: AgentPipelines;
  /** Durable deliveries: task webhooks and A2A push notifications. */
  outbox: Outbox;
  /** The accounts feature's: the principal behind a bearer credential (discovery's optional key), or null. */
  authenticate(credential: string): Promise<Principal | null>;
  /** The account's display name ('' when none): agent cards' `provider.organization`. */
  organizationOf(accountId: string): Promise<string>;
  /** Made before pipelines registered (createA2aCore): its follower is one of their run observers. */
  core: A2aCore;
  /** The pipelines feature: runs (a task is one) and their cost. */
  pipelineRuns: PipelinesFeature;
  limiters: LimiterFactory;
  /** The server's secrets key: task webhook secrets and push-notification credentials are stored sealed under keys derived from it. */
  secretsKey: Buffer;
}

function taskRuns(pipelines: PipelinesFeature): TaskRuns & TaskCosts {
  const { runs } = pipelines;
  return {
    start: (accountId, pipelineId, input, extras) => runs.start(accountId, pipelineId, input, extras),
    answer: (runId, answer) => runs.answer(runId, answer),
    putState: (runId, entry, by) => runs.putState(runId, entry, by),
    stop: (runId, reason) => runs.stop(runId, reason),
    stateEntry: (runId, key) => runs.stateEntry(runId, key),
    costOf: (runId) => pipelines.costOf(runId),
  };
}

export async function registerA2a(app: FastifyInstance, options: A2aOptions): Promise<A2aFeature> {
  const { db } = options.storage;
  const { core } = options;
  const agents = new AgentService(db, options.pipelines);
  await app.register(agentRoutes(agents, options.config.publicUrl));
  await app.register(discoveryRoutes(agents, { publicUrl: options.config.publicUrl, authenticate: options.authenticate, organizationOf: options.organizationOf }));

  const runs = taskRuns(options.pipelineRuns);
  const tasks = new Tasks(db, agents, runs, core.log, await TaskLimits.create(options.limiters));
  const budgets = new TaskBudgets(db, runs, options.config.a2aBudgetIntervalMs, app.log);
  core.follower.afterEvent = (task) => budgets.checkSoon(task);
  await app.register(taskRoutes(tasks));
  app.addHook('onReady', async () => budgets.start());
  app.addHook('onClose', async () => budgets.stop());

  const taskWebhooks = await registerTaskWebhooks(app, { config: options.config, db, outbox: options.outbox, secretsKey: options.secretsKey });
  core.publishers.add(taskWebhooks.publisher);
  const streamSlots = await registerTaskStream(app, { tasks, signals: core.signals, heartbeatMs: options.config.a2aStreamHeartbeatMs });
  const { config, storage, outbox, authenticate, secretsKey } = options;
  core.publishers.add(await registerA2aProtocol(app, { config, storage, outbox, tasks, agents, signals: core.signals, authenticate, secretsKey }));
  return { agents, tasks, signals: core.signals, publishers: core.publishers, taskWebhooks: taskWebhooks.service, streamSlots };
}
