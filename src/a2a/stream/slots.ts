// One open stream per task (the spec's "1 connection per task"), per server process: a second
// connection to the same task is refused until the first one disconnects. Open streams are also what
// a closing server ends, so that closing does not wait for clients that never hang up.
import { Conflict } from '../../core/errors.js';

export class StreamSlots {
  private readonly open = new Map<string, AbortController>();

  /** Takes the task's slot; throws stream_already_open (409) when it is taken. The controller aborts to end the stream. */
  take(taskId: string): AbortController {
    if (this.open.has(taskId)) {
      throw new Conflict(`task ${taskId} already has an open stream (one connection per task): close it first, then reconnect with Last-Event-ID to resume`, 'stream_already_open');
    }
    const controller = new AbortController();
    this.open.set(taskId, controller);
    return controller;
  }

  release(taskId: string, controller: AbortController): void {
    if (this.open.get(taskId) === controller) this.open.delete(taskId);
  }

  get size(): number {
    return this.open.size;
  }

  /** Ends every open stream (the server is closing). */
  closeAll(): void {
    for (const controller of this.open.values()) controller.abort();
  }
}
