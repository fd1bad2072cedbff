// Wires the task stream: its route and the slots that keep it to one connection per task.
import type { FastifyInstance } from 'fastify';
import type { TaskService } from '../contract.js';
import type { TaskSignals } from '../task-signals.js';
import { taskStreamRoutes } from './routes.js';
import { StreamSlots } from './slots.js';

/** Re-read period of an open stream's log, for events committed by another server process. */
export const STREAM_POLL_MS = 1000;

export async function registerTaskStream(app: FastifyInstance, options: { tasks: TaskService; signals: TaskSignals; heartbeatMs: number }): Promise<StreamSlots> {
  const slots = new StreamSlots();
  await app.register(taskStreamRoutes({ ...options, slots, pollMs: STREAM_POLL_MS }));
  return slots;
}
