// The one way a test waits for something that happens later: poll a check until it holds, and fail
// naming what never happened (with the last value the check returned or the error it threw).

type Truthy<T> = Exclude<T, false | null | undefined | 0 | ''>;

/**
 * Polls `check` every `intervalMs` until it returns a truthy value, which it returns. A check that
 * throws (an `expect` that does not hold yet) is polled again. After `timeoutMs` it throws
 * "timed out after N ms waiting for <what>" with the last value seen or error thrown.
 */
export async function waitFor<T>(what: string, check: () => T | Promise<T>, timeoutMs = 15_000, intervalMs = 50): Promise<Truthy<Awaited<T>>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let last: string;
    try {
      const value = await check();
      if (value) return value as Truthy<Awaited<T>>;
      last = `the last check returned ${describe(value)}`;
    } catch (error) {
      last = `the last check threw: ${error instanceof Error ? error.message : String(error)}`;
    }
    if (Date.now() >= deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; ${last}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/**
 * Sends `ask` again every `everyMs` until `check` holds, as waitFor polls it: for a state that applies a
 * moment after the input that asks about it (a terminal resize, which the runtime learns from SIGWINCH,
 * asked with `stty size`).
 */
export function askUntil<T>(what: string, ask: () => void, check: () => T | Promise<T>, timeoutMs = 15_000, everyMs = 300): Promise<Truthy<Awaited<T>>> {
  return waitFor(
    what,
    async () => {
      ask();
      await new Promise((resolve) => setTimeout(resolve, everyMs));
      return check();
    },
    timeoutMs,
    0,
  );
}

function describe(value: unknown): string {
  const text = typeof value === 'string' ? JSON.stringify(value) : String(value);
  return text.length > 500 ? `${text.slice(0, 500)}…` : text;
}
