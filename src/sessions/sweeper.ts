// Runs the session sweep (inactivity timeout, pending trust alerts) on a timer while the app is up.
import type { Logger, SessionService } from './service.js';

/** Often enough that a session times out within a quarter of the timeout past it, at most every 30 s. */
export function sweepIntervalMs(inactivityTimeoutSeconds: number): number {
  return Math.min(30_000, Math.max(250, (inactivityTimeoutSeconds * 1000) / 4));
}

export class SessionSweeper {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;

  constructor(
    private readonly sessions: SessionService,
    private readonly intervalMs: number,
    private readonly log: Logger,
  ) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = this.sessions
        .sweep()
        .catch((error) => this.log.error({ err: error }, 'session sweep failed'))
        .finally(() => (this.running = null));
    }, this.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }
}
