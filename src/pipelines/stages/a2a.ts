// The `a2a` stage: delegates its prompt to an external A2A agent with the A2A SDK's client. The agent
// card is read from `agent_url`, the prompt goes out as a user message for `skill_id`, the task is
// followed (streamed, then polled if the stream ends early) to a terminal state, the remote task is
// canceled when the stage is aborted or the agent's reported cost passes `max_cost_usd`, and the output
// is stored in the run's state under `<stage name>_output`. Every request goes through the SSRF guard.
// With `auth_secret`, every request (the card too) carries `Authorization: Bearer <that account secret's value>`.
import { randomUUID } from 'node:crypto';
import { Role, TaskState, type AgentCard, type Message } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory, RestTransportFactory, type Client } from '@a2a-js/sdk/client';
import { OutboundRefused, type OutboundPolicy } from '../../core/net/outbound-guard.js';
import { guardedFetch } from '../../core/net/outbound-fetch.js';
import { applyStreamEvent, applyTask, INTERRUPTED_STATES, messageText, newProgress, stateName, TERMINAL_STATES, taskOutput, type TaskProgress } from './a2a-task.js';
import { SECRET_NAME_PATTERN } from '../definition/validate.js';
import { abortReason } from './abort-reason.js';
import type { StageContext, StageExecutor, StageOutcome } from './contract.js';

export interface A2aStageDeps {
  /** Which agent URLs may be called (PADDOCK_ALLOW_PRIVATE_WEBHOOKS / PADDOCK_ALLOW_HTTP_WEBHOOKS). */
  policy: OutboundPolicy;
  /** Between polls of a task whose stream ended before a terminal state; default 1000. */
  pollIntervalMs?: number;
  /** The secrets feature's: an account secret's value by name (throws naming it when it does not exist). */
  secretValue?(accountId: string, name: string): Promise<string>;
}

export interface A2aStageConfig {
  agent_url: string;
  skill_id: string;
  prompt: string;
  max_cost_usd?: number;
  /** The name of an account secret sent as `Authorization: Bearer <value>`. */
  auth_secret?: string;
}

const CANCEL_TIMEOUT_MS = 5000;

/** Reads an a2a stage config; `problem` names the field. Usable at save time. */
export function parseA2aStageConfig(raw: Record<string, unknown>): { config: A2aStageConfig } | { problem: string } {
  for (const field of ['agent_url', 'skill_id', 'prompt'] as const) {
    if (typeof raw[field] !== 'string' || !(raw[field] as string).length) return { problem: `config.${field} is required (a non-empty string)` };
  }
  if ((raw.prompt as string).length > 100_000) return { problem: 'config.prompt must be at most 100000 characters' };
  try {
    const url = new URL(raw.agent_url as string);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return { problem: 'config.agent_url must be an http(s) URL' };
  } catch {
    return { problem: 'config.agent_url must be an http(s) URL' };
  }
  const cost = raw.max_cost_usd;
  if (cost !== undefined && !(typeof cost === 'number' && Number.isFinite(cost) && cost >= 0)) return { problem: 'config.max_cost_usd must be a number >= 0' };
  const authSecret = raw.auth_secret;
  if (authSecret !== undefined && !(typeof authSecret === 'string' && SECRET_NAME_PATTERN.test(authSecret))) {
    return { problem: 'config.auth_secret must name an account secret ([A-Za-z_][A-Za-z0-9_]*, up to 128 characters)' };
  }
  return {
    config: {
      agent_url: raw.agent_url as string,
      skill_id: raw.skill_id as string,
      prompt: raw.prompt as string,
      max_cost_usd: cost as number | undefined,
      auth_secret: authSecret as string | undefined,
    },
  };
}

export function outputStateKey(stageName: string): string {
  return `${stageName}_output`;
}

/** Every request with the bearer token, when there is one. */
function withBearer(fetchImpl: typeof fetch, token: string | null): typeof fetch {
  if (token === null) return fetchImpl;
  return (input, init) => {
    const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
    headers.set('authorization', `Bearer ${token}`);
    return fetchImpl(input, { ...init, headers });
  };
}

function clientFactory(policy: OutboundPolicy, bearerToken: string | null): ClientFactory {
  const fetchImpl = withBearer(guardedFetch(policy, { userAgent: 'Paddock-A2A/1' }), bearerToken);
  return new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl }), new RestTransportFactory({ fetchImpl })],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
    }),
  );
}

/** `agent_url` is the agent's URL (its card at `<agent_url>/.well-known/agent-card.json`, as for a Paddock agent's `<base>/a2a/<id>`) or the card's own URL. */
async function connect(factory: ClientFactory, agentUrl: string): Promise<Client> {
  if (new URL(agentUrl).pathname.endsWith('.json')) return factory.createFromUrl(agentUrl, '');
  // The card path is resolved relative to the URL: without the slash its last segment would be dropped.
  return factory.createFromUrl(agentUrl.endsWith('/') ? agentUrl : `${agentUrl}/`);
}

function userMessage(config: A2aStageConfig, context: StageContext): Message {
  return {
    messageId: randomUUID(),
    contextId: '',
    taskId: '',
    role: Role.ROLE_USER,
    parts: [{ content: { $case: 'text', value: config.prompt }, metadata: undefined, filename: '', mediaType: 'text/plain' }],
    metadata: { skill_id: config.skill_id, paddock_run_id: context.runId, paddock_stage: context.stageName },
    extensions: [],
    referenceTaskIds: [],
  };
}

class CostExceeded extends Error {}

function checkCost(progress: TaskProgress, maxCostUsd: number | undefined): void {
  if (maxCostUsd !== undefined && progress.costUsd > maxCostUsd) throw new CostExceeded(`the agent reported a cost of ${progress.costUsd} USD, over max_cost_usd ${maxCostUsd}`);
}

function describeError(error: unknown): string {
  if (error instanceof OutboundRefused) return `the URL ${error.message}`;
  const cause = (error as { cause?: { message?: string } }).cause?.message;
  return `${(error as Error).message}${cause ? ` (${cause})` : ''}`;
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });

async function follow(client: Client, card: AgentCard, config: A2aStageConfig, context: StageContext, progress: TaskProgress, pollIntervalMs: number): Promise<void> {
  // Without streaming, ask for the task at once (returnImmediately) rather than block on it, so the
  // stage can watch its cost and cancel it while it runs.
  const configuration = card.capabilities?.streaming ? undefined : { acceptedOutputModes: [], taskPushNotificationConfig: undefined, returnImmediately: true };
  const request = { tenant: '', message: userMessage(config, context), configuration, metadata: { skill_id: config.skill_id } };
  const options = { signal: context.signal };
  if (card.capabilities?.streaming) {
    for await (const event of client.sendMessageStream(request, options)) {
      applyStreamEvent(progress, event);
      checkCost(progress, config.max_cost_usd);
      if (progress.state !== null && (TERMINAL_STATES.has(progress.state) || INTERRUPTED_STATES.has(progress.state))) return;
    }
  } else {
    const result = await client.sendMessage(request, options);
    if ('role' in result) progress.reply = result;
    else applyTask(progress, result);
    checkCost(progress, config.max_cost_usd);
  }
  // The stream ended (or the agent answered at once) before a terminal state: poll the task.
  while (!progress.reply && progress.taskId && progress.state !== null && !TERMINAL_STATES.has(progress.state) && !INTERRUPTED_STATES.has(progress.state)) {
    await sleep(pollIntervalMs, context.signal);
    context.signal.throwIfAborted();
    applyTask(progress, await client.getTask({ tenant: '', id: progress.taskId }, options));
    checkCost(progress, config.max_cost_usd);
  }
}

async function cancelRemote(client: Client, progress: TaskProgress, context: StageContext): Promise<string> {
  if (!progress.taskId || (progress.state !== null && TERMINAL_STATES.has(progress.state))) return 'nothing to cancel on the agent';
  try {
    await client.cancelTask({ tenant: '', id: progress.taskId, metadata: { reason: `paddock stage ${context.stageName}` } }, { signal: AbortSignal.timeout(CANCEL_TIMEOUT_MS) });
    return `remote task ${progress.taskId} canceled`;
  } catch (error) {
    return `canceling remote task ${progress.taskId} failed: ${describeError(error)}`;
  }
}

export function createA2aStage(deps: A2aStageDeps): StageExecutor {
  const unauthenticated = clientFactory(deps.policy, null);
  return async function runA2aStage(context: StageContext): Promise<StageOutcome> {
    const parsed = parseA2aStageConfig(context.config);
    if ('problem' in parsed) return { status: 'failed', error: parsed.problem };
    const { config } = parsed;
    let factory = unauthenticated;
    if (config.auth_secret) {
      try {
        if (!deps.secretValue) throw new Error('account secrets are not available to this server');
        factory = clientFactory(deps.policy, await deps.secretValue(context.accountId, config.auth_secret));
      } catch (error) {
        return { status: 'failed', error: `a2a: config.auth_secret: ${(error as Error).message}` };
      }
    }

    let client: Client;
    let card: AgentCard;
    try {
      client = await connect(factory, config.agent_url);
      card = await client.getAgentCard({ signal: context.signal });
    } catch (error) {
      return { status: 'failed', error: `a2a: could not reach the agent at ${config.agent_url}: ${describeError(error)}` };
    }
    if (!card.skills.some((skill) => skill.id === config.skill_id)) {
      return { status: 'failed', error: `a2a: agent ${card.name} has no skill ${config.skill_id} (it has: ${card.skills.map((s) => s.id).join(', ') || 'none'})` };
    }
    context.log('stdout', `delegating to ${card.name} (${config.agent_url}), skill ${config.skill_id}\n`);

    const progress = newProgress();
    try {
      await follow(client, card, config, context, progress, deps.pollIntervalMs ?? 1000);
    } catch (error) {
      const aborted = context.signal.aborted;
      if (aborted || error instanceof CostExceeded) {
        const canceled = await cancelRemote(client, progress, context);
        const why = aborted ? `stopped: ${abortReason(context.signal)}` : (error as Error).message;
        context.log('stderr', `${why}; ${canceled}\n`);
        return { status: 'failed', error: `a2a: ${why}; ${canceled}`, cost_usd: progress.costUsd };
      }
      return { status: 'failed', error: `a2a: the agent at ${config.agent_url} failed to answer: ${describeError(error)}`, cost_usd: progress.costUsd };
    }

    const output = taskOutput(progress, config.agent_url);
    if (progress.state !== null && INTERRUPTED_STATES.has(progress.state)) {
      const canceled = await cancelRemote(client, progress, context);
      return {
        status: 'failed',
        error: `a2a: the agent asked for more (${stateName(progress.state)}: ${messageText(progress.statusMessage)}), which a pipeline stage cannot give; ${canceled}`,
        cost_usd: progress.costUsd,
      };
    }
    if (progress.state !== null && progress.state !== TaskState.TASK_STATE_COMPLETED) {
      const remote = messageText(progress.statusMessage);
      return { status: 'failed', error: `a2a: the agent's task ${progress.taskId} ended ${stateName(progress.state)}${remote ? `: ${remote}` : ''}`, cost_usd: progress.costUsd };
    }
    await context.state.put(outputStateKey(context.stageName), output, { type: 'json' });
    context.log('stdout', `task ${output.task_id ?? '(message reply)'} completed; output stored in state key ${outputStateKey(context.stageName)}\n`);
    return { status: 'succeeded', cost_usd: progress.costUsd };
  };
}
