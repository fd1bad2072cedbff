// Tasks: each one run of its agent's pipeline, created in the run's transaction. The run follower
// (follower.ts) moves a task along with its run; this service creates, reads, answers and cancels.
import { inTransaction } from '../../core/db/after-commit.js';
import type { Db, Tx } from '../../core/db/handles.js';
import { Conflict, HttpError } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import type { RateDecision } from '../../core/rate-limit.js';
import { nowIso } from '../../core/time.js';
import type { AgentDirectory, ArtifactView, CreateTaskInput, MessageView, Part, TaskEvent, TaskFilter, TaskService, TaskView } from '../contract.js';
import { TERMINAL_TASK_STATUSES } from '../contract.js';
import type { TaskLimits } from './limits.js';
import { commentOf, decisionOf } from './parts.js';
import * as store from './store.js';
import type { TaskLog } from './task-log.js';
import { artifactView, eventView, messageView, taskView } from './views.js';

/** The run state key holding the task's input (JSON) from the run's creation. */
export const INPUT_STATE_KEY = 'task_input';
/** The run state key holding the parts of the latest user message (JSON array). */
export const REPLY_STATE_KEY = 'task_reply';

/** What tasks need of pipelines' runs (the pipelines feature answers; see plugin.ts). */
export interface TaskRuns {
  start(
    accountId: string,
    pipelineId: string,
    input: { trigger: string; env: Record<string, string> },
    extras: {
      template: string | null;
      priority: number;
      initialState: { key: string; value: unknown; type: 'json' }[];
      inside: (trx: Tx, run: { id: string; session_id: string | null }) => Promise<void>;
    },
  ): Promise<unknown>;
  answer(
    runId: string,
    answer: { decision: 'approve' | 'reject'; by: string; comment: string | null; state: { key: string; value: unknown; type: 'json' }[]; inside: (trx: Tx) => Promise<void> },
  ): Promise<void>;
  putState(runId: string, entry: { key: string; value: unknown; type: 'json' }, by: string): Promise<void>;
  stop(runId: string, reason: string): Promise<boolean>;
  stateEntry(runId: string, key: string): Promise<{ value: string; type: string; mime_type: string | null } | null>;
}

const notFound = () => new HttpError(404, 'task not found', 'task_not_found');

export class Tasks implements TaskService {
  constructor(
    private readonly db: Db,
    private readonly agents: AgentDirectory,
    private readonly runs: TaskRuns,
    private readonly log: TaskLog,
    private readonly limits: TaskLimits,
  ) {}

  async create(accountId: string, agentId: string, input: CreateTaskInput): Promise<TaskView> {
    return (await this.createLimited(accountId, agentId, input)).task;
  }

  /** `create`, also answering the agent's rate-limit decision (its headers), null when the agent sets no rate_limit_rpm. */
  async createLimited(accountId: string, agentId: string, input: CreateTaskInput): Promise<{ task: TaskView; rate: RateDecision | null }> {
    const agent = await this.agents.get(accountId, agentId);
    if (!agent.enabled) throw new HttpError(403, `agent ${agent.id} is disabled: it takes no tasks until it is enabled again`, 'agent_disabled');
    this.agents.validateInput(agent, input.skill_id, input.input);
    const rate = await this.limits.creation(agent);
    if (agent.maxCostPerTask !== null) {
      const inFlight = await store.unfinishedCost(this.db, accountId, agent.id);
      if (inFlight >= agent.maxCostPerTask) {
        throw new HttpError(
          402,
          `the agent's max_cost_per_task (${agent.maxCostPerTask} USD) is already reached by this account's unfinished tasks of the agent (${inFlight} USD): wait for them to end, or raise the limit`,
          'budget_exceeded',
          { max_cost_per_task: agent.maxCostPerTask, unfinished_cost_usd: inFlight },
        );
      }
    }
    const now = nowIso();
    const id = newId('tsk');
    let created: store.TaskRow | null = null;
    await this.runs.start(
      accountId,
      agent.pipelineId,
      { trigger: 'a2a', env: { A2A_TASK_ID: id, A2A_SKILL_ID: input.skill_id, A2A_INPUT: JSON.stringify(input.input) } },
      {
        template: agent.template,
        priority: input.priority ?? 0,
        initialState: [{ key: INPUT_STATE_KEY, value: input.input, type: 'json' }],
        inside: async (trx, run) => {
          const row: store.TaskRow = {
            id,
            account_id: accountId,
            agent_id: agent.id,
            run_id: run.id,
            context_id: input.context_id ?? newId('ctx'),
            skill_id: input.skill_id,
            input: JSON.stringify(input.input),
            priority: input.priority ?? 0,
            status: 'pending',
            status_message: null,
            progress: JSON.stringify({ percentage: 0, current_step: null, message: null }),
            output: null,
            error: null,
            cost_usd: 0,
            max_cost_usd: agent.maxCostPerTask,
            event_count: 0,
            session_id: run.session_id,
            created_at: now,
            started_at: null,
            completed_at: null,
            updated_at: now,
          };
          await store.insertTask(trx, row);
          await this.log.apply(trx, row, { status: { status: 'pending', message: null } }, now);
          created = { ...row };
        },
      },
    );
    // The task as created: the worker may already have started the run.
    return { task: taskView(created!, []), rate };
  }

  async row(accountId: string, taskId: string): Promise<store.TaskRow> {
    const row = await store.findTask(this.db, accountId, taskId);
    if (!row) throw notFound();
    return row;
  }

  async get(accountId: string, taskId: string): Promise<TaskView> {
    const row = await this.row(accountId, taskId);
    return taskView(row, await store.artifactsOf(this.db, [row.id]));
  }

  /** `get` counted against the task's polling limit (60 per minute); 429 rate_limited beyond it. */
  async poll(accountId: string, taskId: string): Promise<{ task: TaskView; rate: RateDecision }> {
    const row = await this.row(accountId, taskId);
    const rate = await this.limits.polling(row.id);
    return { task: taskView(row, await store.artifactsOf(this.db, [row.id])), rate };
  }

  async list(accountId: string, filter: TaskFilter) {
    const { rows, total } = await store.listTasks(this.db, accountId, filter);
    const artifacts = await store.artifactsOf(
      this.db,
      rows.map((row) => row.id),
    );
    return {
      tasks: rows.map((row) =>
        taskView(
          row,
          artifacts.filter((artifact) => artifact.task_id === row.id),
        ),
      ),
      total,
      limit: filter.limit,
      offset: filter.offset,
    };
  }

  async sendMessage(accountId: string, taskId: string, parts: Part[]): Promise<MessageView> {
    const task = await this.row(accountId, taskId);
    if (TERMINAL_TASK_STATUSES.includes(task.status)) throw new Conflict(`the task already ended (${task.status}): it takes no more messages`);
    const now = nowIso();
    const message: store.MessageRow = { id: newId('msg'), task_id: task.id, role: 'user', parts: JSON.stringify(parts), created_at: now };
    const record = async (trx: Tx) => {
      await store.insertMessage(trx, message);
      await this.log.apply(trx, task, { events: [{ kind: 'message', data: { role: 'user', parts } }] }, now);
    };
    const reply = { key: REPLY_STATE_KEY, value: parts, type: 'json' as const };
    const by = `a2a_task:${task.id}`;
    if (task.status === 'input_needed') {
      await this.runs.answer(task.run_id, { decision: decisionOf(parts), by, comment: commentOf(parts), state: [reply], inside: record }).catch((error) => {
        if (error instanceof Conflict) throw new Conflict('the task is no longer waiting for input (it was answered, or its run moved on meanwhile)');
        throw error;
      });
    } else {
      await this.runs.putState(task.run_id, reply, by);
      await inTransaction(this.db, record);
    }
    return messageView(message);
  }

  async messages(accountId: string, taskId: string): Promise<MessageView[]> {
    const task = await this.row(accountId, taskId);
    return (await store.messagesOf(this.db, task.id)).map(messageView);
  }

  async cancel(accountId: string, taskId: string, reason: string): Promise<TaskView> {
    const task = await this.row(accountId, taskId);
    if (TERMINAL_TASK_STATUSES.includes(task.status) || !(await this.runs.stop(task.run_id, reason))) {
      const now = await this.row(accountId, taskId);
      throw new Conflict(`the task already ended (${now.status})`);
    }
    return this.get(accountId, taskId);
  }

  async events(accountId: string, taskId: string, afterSequence: number, limit: number): Promise<TaskEvent[]> {
    const task = await this.row(accountId, taskId);
    return (await store.eventsOf(this.db, task.id, afterSequence, limit)).map(eventView);
  }

  async artifact(accountId: string, taskId: string, artifactId: string): Promise<{ view: ArtifactView; content: Buffer }> {
    const task = await this.row(accountId, taskId);
    const row = (await store.artifactsOf(this.db, [task.id])).find((artifact) => artifact.id === artifactId);
    if (!row) throw new HttpError(404, `artifact ${artifactId} of task ${task.id} not found`, 'not_found');
    const entry = await this.runs.stateEntry(task.run_id, row.state_key);
    if (!entry) throw new HttpError(404, `artifact ${artifactId} is gone: its run state entry "${row.state_key}" expired or was deleted`, 'not_found');
    return { view: artifactView(row), content: Buffer.from(entry.value, 'utf8') };
  }
}
