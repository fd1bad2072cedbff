// Wakes readers of a task's event log (streams, protocol subscriptions) when a transaction that wrote to
// it commits. In-process only: readers also re-read the log on a timer, so events written by another
// server process sharing the database arrive too, only later.
export class TaskSignals {
  private readonly waiting = new Map<string, Set<() => void>>();

  /** Called after a commit that appended to the task's event log (core/db/after-commit.ts). */
  changed(taskId: string): void {
    const wakers = this.waiting.get(taskId);
    if (!wakers) return;
    this.waiting.delete(taskId);
    for (const wake of wakers) wake();
  }

  /** Resolves on the next change of the task, after `timeoutMs`, or when `signal` aborts, whichever comes first. */
  next(taskId: string, timeoutMs: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      let wakers = this.waiting.get(taskId);
      if (!wakers) this.waiting.set(taskId, (wakers = new Set()));
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        const current = this.waiting.get(taskId);
        current?.delete(done);
        if (current?.size === 0) this.waiting.delete(taskId);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      signal?.addEventListener('abort', done, { once: true });
      wakers.add(done);
    });
  }
}
