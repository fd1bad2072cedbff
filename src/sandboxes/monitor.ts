// Watches live sandboxes while the app is up: pauses the idle ones (their `timeout`) every second, and
// every other second asks the runtime whether running and paused ones still have their processes
// (a crash, the OOM killer, an operator's kill) so they move to `error` with a `sandbox_error` alert.
import { PeriodicTask } from '../core/periodic-task.js';
import type { PauseSnapshots, SandboxService } from './service.js';
import type { Logger } from '../core/logging.js';

export const MONITOR_INTERVAL_MS = 1000;
const CRASH_CHECK_EVERY_TICKS = 2;

export class SandboxMonitor {
  private readonly task: PeriodicTask;
  private ticks = 0;

  constructor(
    private readonly sandboxes: SandboxService,
    /** An idle pause takes the automatic snapshot as a requested one does. */
    private readonly pauseSnapshots: PauseSnapshots | null,
    private readonly log: Logger,
    private readonly intervalMs = MONITOR_INTERVAL_MS,
  ) {
    this.task = new PeriodicTask('sandbox monitor', intervalMs, () => this.tick(), log);
  }

  start(): void {
    this.task.start(this.intervalMs);
  }

  async stop(): Promise<void> {
    await this.task.stop();
  }

  private async tick(): Promise<void> {
    this.ticks++;
    if (this.ticks % CRASH_CHECK_EVERY_TICKS === 0) {
      const failed = await this.sandboxes.failCrashed();
      if (failed.length) this.log.warn({ sandbox_ids: failed }, 'sandboxes crashed');
    }
    const paused = await this.sandboxes.pauseIdle(this.pauseSnapshots);
    if (paused.length) this.log.info({ sandbox_ids: paused }, 'idle sandboxes paused');
  }
}
