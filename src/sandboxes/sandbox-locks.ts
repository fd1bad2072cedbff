// One operation at a time per sandbox for the ones that freeze, thaw or swap its filesystem (pause,
// resume, snapshot copy, restore): a snapshot's thaw must never undo a pause that ran meanwhile.
export class SandboxLocks {
  private readonly tails = new Map<string, Promise<unknown>>();

  /** Runs `work` after every earlier operation on `id` has finished. */
  run<T>(id: string, work: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(id) ?? Promise.resolve();
    const result = previous.catch(() => {}).then(work);
    const tail = result.catch(() => {});
    this.tails.set(id, tail);
    void tail.then(() => {
      if (this.tails.get(id) === tail) this.tails.delete(id);
    });
    return result;
  }

  /** Whether an operation on `id` is running or queued (monitors leave such sandboxes alone). */
  busy(id: string): boolean {
    return this.tails.has(id);
  }
}
