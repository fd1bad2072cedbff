// The reader against an in-memory log (a fake TaskService, only here) and the real TaskSignals.
import { describe, expect, it } from 'vitest';
import type { TaskEvent, TaskService, TaskStatus } from '../contract.js';
import { TaskSignals } from '../task-signals.js';
import { readTaskEvents } from './event-reader.js';

function memoryLog() {
  const events: TaskEvent[] = [];
  let status: TaskStatus = 'running';
  let reads = 0;
  const service = {
    async events(_account: string, _task: string, after: number, limit: number) {
      reads++;
      return events.filter((event) => event.sequence > after).slice(0, limit);
    },
    async get() {
      return { status } as never;
    },
  } as unknown as TaskService;
  return {
    service,
    reads: () => reads,
    append(kind: TaskEvent['kind'], data: Record<string, unknown> = {}) {
      events.push({ sequence: events.length + 1, kind, data, created_at: new Date().toISOString() });
    },
    end(to: TaskStatus) {
      status = to;
    },
  };
}

async function collect(iterator: AsyncGenerator<TaskEvent>, into: TaskEvent[]) {
  for await (const event of iterator) into.push(event);
}

describe('readTaskEvents', () => {
  it('replays after the sequence, then follows signalled appends until `complete`', async () => {
    const log = memoryLog();
    const signals = new TaskSignals();
    for (let i = 0; i < 3; i++) log.append('progress', { i });
    const seen: TaskEvent[] = [];
    const done = collect(readTaskEvents(log.service, signals, { accountId: 'a', taskId: 't', afterSequence: 1, signal: new AbortController().signal, pollMs: 60_000 }), seen);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(seen.map((event) => event.sequence)).toEqual([2, 3]);
    log.append('status', { status: 'completed' });
    log.append('complete', { status: 'completed', output: 1 });
    log.append('progress', { after: 'the end' });
    signals.changed('t');
    await done;
    expect(seen.map((event) => event.sequence)).toEqual([2, 3, 4, 5]);
  });

  it('pages through a long log without losing or repeating', async () => {
    const log = memoryLog();
    for (let i = 0; i < 250; i++) log.append('progress');
    log.append('error', { status: 'failed', error: 'x' });
    const seen: TaskEvent[] = [];
    await collect(readTaskEvents(log.service, new TaskSignals(), { accountId: 'a', taskId: 't', afterSequence: 0, signal: new AbortController().signal, pollMs: 60_000 }), seen);
    expect(seen.map((event) => event.sequence)).toEqual(Array.from({ length: 251 }, (_, i) => i + 1));
  });

  it('re-reads on the timer when nothing signals (another process wrote)', async () => {
    const log = memoryLog();
    const seen: TaskEvent[] = [];
    const done = collect(readTaskEvents(log.service, new TaskSignals(), { accountId: 'a', taskId: 't', afterSequence: 0, signal: new AbortController().signal, pollMs: 30 }), seen);
    log.append('complete', { status: 'completed', output: null });
    await done;
    expect(seen).toHaveLength(1);
  });

  it('stops when aborted, and when the task ended without a final event once the log is drained', async () => {
    const log = memoryLog();
    const controller = new AbortController();
    const seen: TaskEvent[] = [];
    const done = collect(readTaskEvents(log.service, new TaskSignals(), { accountId: 'a', taskId: 't', afterSequence: 0, signal: controller.signal, pollMs: 60_000 }), seen);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const readsBefore = log.reads();
    controller.abort();
    await done;
    expect(log.reads()).toBe(readsBefore);

    const ended = memoryLog();
    ended.append('status', { status: 'canceled' });
    ended.end('canceled');
    const replayed: TaskEvent[] = [];
    await collect(readTaskEvents(ended.service, new TaskSignals(), { accountId: 'a', taskId: 't', afterSequence: 0, signal: new AbortController().signal, pollMs: 10 }), replayed);
    expect(replayed.map((event) => event.kind)).toEqual(['status']);
  });
});
