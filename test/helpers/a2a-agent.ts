// A real A2A agent for tests, built from the A2A SDK's server parts on express. Its skills:
// `echo` answers the prompt in an artifact (reporting cost_usd 0.01), `fail` ends its task failed,
// `spend` reports cost_usd 0.5 and then works until canceled, `slow` works until canceled, `ask`
// wants input. It records every message it received and every cancel request.
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { randomUUID } from 'node:crypto';
import express from 'express';
import { AGENT_CARD_PATH, Role, TaskState, type AgentCard, type Message } from '@a2a-js/sdk';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore, type AgentExecutor, type ExecutionEventBus, type RequestContext } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, UserBuilder } from '@a2a-js/sdk/server/express';

export interface TestAgent {
  url: string;
  received: Message[];
  canceled: string[];
  close(): Promise<void>;
}

const text = (value: string) => ({ content: { $case: 'text' as const, value }, metadata: undefined, filename: '', mediaType: 'text/plain' });

function agentMessage(taskId: string, contextId: string, value: string): Message {
  return { messageId: randomUUID(), contextId, taskId, role: Role.ROLE_AGENT, parts: [text(value)], metadata: {}, extensions: [], referenceTaskIds: [] };
}

class TestExecutor implements AgentExecutor {
  readonly canceled = new Set<string>();
  constructor(private readonly agent: TestAgent) {}

  private readonly running = new Set<string>();
  private readonly contexts = new Map<string, string>();

  /** A running task is told to stop; one waiting for input is canceled here and now. */
  cancelTask = async (taskId: string, bus: ExecutionEventBus): Promise<void> => {
    this.canceled.add(taskId);
    this.agent.canceled.push(taskId);
    if (!this.running.has(taskId)) {
      const contextId = this.contexts.get(taskId) ?? '';
      bus.publish(AgentEvent.statusUpdate({ taskId, contextId, status: { state: TaskState.TASK_STATE_CANCELED, timestamp: new Date().toISOString(), message: undefined }, metadata: {} }));
    }
  };

  async execute(request: RequestContext, bus: ExecutionEventBus): Promise<void> {
    this.running.add(request.taskId);
    this.contexts.set(request.taskId, request.contextId);
    try {
      await this.work(request, bus);
    } finally {
      this.running.delete(request.taskId);
    }
  }

  private async work(request: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const message = request.userMessage;
    this.agent.received.push(message);
    const { taskId, contextId } = request;
    const status = (state: TaskState, note?: string, metadata: Record<string, unknown> = {}) =>
      bus.publish(AgentEvent.statusUpdate({ taskId, contextId, status: { state, timestamp: new Date().toISOString(), message: note ? agentMessage(taskId, contextId, note) : undefined }, metadata }));
    bus.publish(
      AgentEvent.task({
        id: taskId,
        contextId,
        status: { state: TaskState.TASK_STATE_SUBMITTED, timestamp: new Date().toISOString(), message: undefined },
        artifacts: [],
        history: [message],
        metadata: {},
      }),
    );
    status(TaskState.TASK_STATE_WORKING);
    const prompt = message.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');
    switch (message.metadata?.skill_id) {
      case 'echo':
        bus.publish(
          AgentEvent.artifactUpdate({
            taskId,
            contextId,
            artifact: {
              artifactId: 'answer',
              name: 'answer',
              description: '',
              parts: [text(`echo: ${prompt}`), { content: { $case: 'data', value: { length: prompt.length } }, metadata: undefined, filename: '', mediaType: 'application/json' }],
              metadata: { cost_usd: 0.01 },
              extensions: [],
            },
            append: false,
            lastChunk: true,
            metadata: {},
          }),
        );
        status(TaskState.TASK_STATE_COMPLETED, 'done', { cost_usd: 0.01 });
        return;
      case 'fail':
        status(TaskState.TASK_STATE_FAILED, 'model overloaded, try later');
        return;
      case 'ask':
        status(TaskState.TASK_STATE_INPUT_REQUIRED, 'which repository?');
        return;
      case 'spend':
      case 'slow':
        if (message.metadata?.skill_id === 'spend') status(TaskState.TASK_STATE_WORKING, 'thinking hard', { cost_usd: 0.5 });
        for (let waited = 0; waited < 60_000 && !this.canceled.has(taskId); waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
        status(this.canceled.has(taskId) ? TaskState.TASK_STATE_CANCELED : TaskState.TASK_STATE_COMPLETED, this.canceled.has(taskId) ? 'canceled on request' : 'finished');
        return;
      default:
        status(TaskState.TASK_STATE_REJECTED, `unknown skill ${String(message.metadata?.skill_id)}`);
    }
  }
}

export async function startTestAgent(options: { streaming?: boolean } = {}): Promise<TestAgent> {
  const app = express();
  const server: Server = await new Promise((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const card: AgentCard = {
    name: 'Test Agent',
    description: 'Answers Paddock tests.',
    supportedInterfaces: [{ url: `${base}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' }],
    provider: undefined,
    version: '1.0.0',
    capabilities: { streaming: options.streaming ?? true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text'],
    defaultOutputModes: ['text'],
    skills: ['echo', 'fail', 'spend', 'slow', 'ask'].map((id) => ({ id, name: id, description: id, tags: [], examples: [], inputModes: ['text'], outputModes: ['text'], securityRequirements: [] })),
    signatures: [],
  };
  const agent: TestAgent = {
    url: base,
    received: [],
    canceled: [],
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), new TestExecutor(agent));
  app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: handler }));
  app.use('/a2a/jsonrpc', jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  return agent;
}
