// The message → task mapping and the task → A2A mapping, as the README documents them.
import { describe, expect, it } from 'vitest';
import { Role, TaskState, type Message, type Part } from '@a2a-js/sdk';
import type { AgentRecord, TaskView } from '../contract.js';
import { inputFor, skillFor, statusOf, stateOf, toA2aTask, toStatusUpdate } from './mapping.js';

const text = (value: string): Part => ({ content: { $case: 'text', value }, metadata: undefined, filename: '', mediaType: 'text/plain' });
const data = (value: unknown): Part => ({ content: { $case: 'data', value }, metadata: undefined, filename: '', mediaType: 'application/json' });
const message = (parts: Part[], metadata: Record<string, unknown> = {}): Message => ({
  messageId: 'm',
  contextId: '',
  taskId: '',
  role: Role.ROLE_USER,
  parts,
  metadata,
  extensions: [],
  referenceTaskIds: [],
});
const skill = (id: string) => ({ id, name: id, description: '', tags: [], input_schema: {} });
const agent = (skills: string[]) => ({ id: 'agt_1', skills: skills.map(skill) }) as unknown as AgentRecord;

const task: TaskView = {
  id: 'tsk_1',
  agent_id: 'agt_1',
  status: 'input_needed',
  status_message: 'which repository?',
  session_id: null,
  progress: { percentage: 50, current_step: 'ask', message: null },
  skill_id: 'chat',
  input: {},
  priority: 0,
  output: null,
  artifacts: [],
  cost_usd: 0.25,
  context_id: 'ctx_1',
  run_id: 'run_1',
  started_at: null,
  completed_at: null,
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:01.000Z',
};

describe('A2A mapping', () => {
  it('maps every status to its state and back', () => {
    expect(['pending', 'running', 'input_needed', 'completed', 'failed', 'canceled'].map((status) => stateOf(status as never))).toEqual([
      TaskState.TASK_STATE_SUBMITTED,
      TaskState.TASK_STATE_WORKING,
      TaskState.TASK_STATE_INPUT_REQUIRED,
      TaskState.TASK_STATE_COMPLETED,
      TaskState.TASK_STATE_FAILED,
      TaskState.TASK_STATE_CANCELED,
    ]);
    expect(statusOf(TaskState.TASK_STATE_INPUT_REQUIRED)).toBe('input_needed');
    expect(statusOf(TaskState.TASK_STATE_REJECTED)).toBeNull();
  });

  it('takes the input from one object data part as it is, else text joined with data fields and files', () => {
    expect(inputFor(message([data({ query: 'q', n: 1 })]))).toEqual({ query: 'q', n: 1 });
    expect(inputFor(message([text('a'), text('b'), data({ n: 1 }), data([1, 2])]))).toEqual({ text: 'a\nb', n: 1 });
    const file: Part = { content: { $case: 'raw', value: Buffer.from('hi') }, metadata: undefined, filename: 'x.txt', mediaType: 'text/plain' };
    expect(inputFor(message([text('see'), file]))).toEqual({ text: 'see', files: [{ name: 'x.txt', mime_type: 'text/plain', data: Buffer.from('hi').toString('base64') }] });
    expect(() => inputFor(message([{ content: { $case: 'url', value: 'https://x' }, metadata: undefined, filename: '', mediaType: '' }]))).toThrow(/parts\[0\].*url/);
  });

  it('picks the named skill, else the only one, else names the choices', () => {
    expect(skillFor(agent(['a', 'b']), message([], { skill_id: 'b' }), undefined)).toBe('b');
    expect(skillFor(agent(['a', 'b']), message([]), { skill_id: 'a' })).toBe('a');
    expect(skillFor(agent(['only']), message([]), undefined)).toBe('only');
    expect(() => skillFor(agent(['a', 'b']), message([]), undefined)).toThrow(/2 skills.*a, b/);
    expect(() => skillFor(agent(['a']), message([], { skill_id: 'z' }), undefined)).toThrow(/"z" is not a skill.*a/);
  });

  it('maps a task: status with its message, output artifact, history, metadata', () => {
    const a2a = toA2aTask(
      { ...task, status: 'completed', output: { answer: 42 } },
      { messages: [{ id: 'msg_1', task_id: 'tsk_1', role: 'user', parts: [{ type: 'text', text: 'go' }], created_at: task.created_at }], historyLength: 5 },
    );
    expect(a2a).toMatchObject({
      id: 'tsk_1',
      contextId: 'ctx_1',
      status: { state: TaskState.TASK_STATE_COMPLETED, timestamp: task.updated_at, message: { role: Role.ROLE_AGENT, parts: [text('which repository?')] } },
      artifacts: [{ artifactId: 'output', parts: [data({ answer: 42 })] }],
      history: [{ messageId: 'msg_1', role: Role.ROLE_USER, parts: [text('go')] }],
      metadata: { paddock_task_id: 'tsk_1', run_id: 'run_1', cost_usd: 0.25, progress: task.progress },
    });
    expect(toA2aTask(task, { messages: [], historyLength: 0 }).artifacts).toEqual([]);
  });

  it('turns status and progress events into status updates, and nothing else', () => {
    expect(toStatusUpdate(task, { sequence: 3, kind: 'status', data: { status: 'running', message: null }, created_at: 't' })).toMatchObject({
      taskId: 'tsk_1',
      status: { state: TaskState.TASK_STATE_WORKING, message: undefined, timestamp: 't' },
      metadata: { sequence: 3 },
    });
    expect(toStatusUpdate(task, { sequence: 4, kind: 'progress', data: { percentage: 10, current_step: 's', message: 'half' }, created_at: 't' })?.metadata).toEqual({
      sequence: 4,
      progress: { percentage: 10, current_step: 's', message: 'half' },
    });
    expect(toStatusUpdate(task, { sequence: 5, kind: 'complete', data: {}, created_at: 't' })).toBeNull();
  });
});
