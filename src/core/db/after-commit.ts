// Work that must wait until a transaction's writes are visible (waking a reader of them: a task stream,
// a worker). `inTransaction` opens the transaction and runs what `afterCommit` queued once it committed;
// nothing queued runs when it rolls back.
import type { Db, Tx } from './handles.js';

const queued = new WeakMap<Tx, (() => void)[]>();

export async function inTransaction<T>(db: Db, work: (trx: Tx) => Promise<T>): Promise<T> {
  const callbacks: (() => void)[] = [];
  const result = await db.transaction().execute(async (trx) => {
    queued.set(trx, callbacks);
    return work(trx);
  });
  for (const callback of callbacks) {
    try {
      callback();
    } catch {
      // A waker that throws must not turn a committed change into a failed request.
    }
  }
  return result;
}

/** Runs `callback` after `trx` commits. A transaction not opened by `inTransaction` cannot say when it commits: the callback then runs on the next turn of the event loop, and the woken reader must tolerate finding nothing new yet. */
export function afterCommit(trx: Tx, callback: () => void): void {
  const callbacks = queued.get(trx);
  if (callbacks) callbacks.push(callback);
  else setImmediate(callback);
}
