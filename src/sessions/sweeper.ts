// Runs the session sweep (inactivity timeout, pending trust alerts) on a timer while the app is up.
import { PeriodicTask } from '../core/periodic-task.js';
import type { SessionService } from './service.js';
import type { Logger } from '../core/logging.js';

/** Often enough that a session times out within a quarter of the timeout past it, at most every 30 s. */
export function sweepIntervalMs(inactivityTimeoutSeconds: number): number {
  return Math.min(30_000, Math.max(250, (inactivityTimeoutSeconds * 1000) / 4));
}

export class SessionSweeper {
  private readonly task: PeriodicTask;

  constructor(
    sessions: SessionService,
    private readonly intervalMs: number,
    log: Logger,
  ) {
    this.task = new PeriodicTask('session sweep', intervalMs, () => sessions.sweep(), log);
  }

  start(): void {
    this.task.start(this.intervalMs);
  }

  async stop(): Promise<void> {
    await this.task.stop();
  }
}
