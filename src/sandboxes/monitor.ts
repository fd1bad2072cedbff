// Watches live sandboxes while the app is up: pauses the idle ones (their `timeout`) every second, and
// every other second asks the runtime whether running and paused ones still have their processes
// (a crash, the OOM killer, an operator's kill) so they move to `error` with a `sandbox_error` alert.
import type { Logger, SandboxService } from './service.js';

export const MONITOR_INTERVAL_MS = 1000;
const CRASH_CHECK_EVERY_TICKS = 2;

export class SandboxMonitor {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private ticks = 0;

  constructor(
    private readonly sandboxes: SandboxService,
    private readonly log: Logger,
    private readonly intervalMs = MONITOR_INTERVAL_MS,
  ) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = this.tick()
        .catch((error) => this.log.error({ err: error }, 'sandbox monitor failed'))
        .finally(() => (this.running = null));
    }, this.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  private async tick(): Promise<void> {
    this.ticks++;
    if (this.ticks % CRASH_CHECK_EVERY_TICKS === 0) {
      const failed = await this.sandboxes.failCrashed();
      if (failed.length) this.log.warn({ sandbox_ids: failed }, 'sandboxes crashed');
    }
    const paused = await this.sandboxes.pauseIdle();
    if (paused.length) this.log.info({ sandbox_ids: paused }, 'idle sandboxes paused');
  }
}
