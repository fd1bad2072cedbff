// Terminal traffic counts as sandbox activity (the idle timeout reads `last_activity_at`). Keystrokes and
// output arrive many times a second, so the database is written at most once per interval per sandbox:
// the recorded time lags real activity by less than the interval.

export const ACTIVITY_INTERVAL_MS = 5000;

export class ActivityThrottle {
  private readonly lastRecordedMs = new Map<string, number>();

  constructor(
    private readonly record: (sandboxId: string) => Promise<void>,
    private readonly onError: (error: unknown, sandboxId: string) => void,
    private readonly intervalMs = ACTIVITY_INTERVAL_MS,
  ) {}

  touch(sandboxId: string): void {
    const now = Date.now();
    if (now - (this.lastRecordedMs.get(sandboxId) ?? -Infinity) < this.intervalMs) return;
    this.lastRecordedMs.set(sandboxId, now);
    this.record(sandboxId).catch((error) => this.onError(error, sandboxId));
  }

  forget(sandboxId: string): void {
    this.lastRecordedMs.delete(sandboxId);
  }
}
