// A background pass that repeats: never two passes at once, the next one after the delay the pass asks
// for (or the interval), `wake()` for a pass as soon as possible, and `stop()` that waits for the pass in
// flight. Sweepers, monitors and the outbox worker all run this way.
import type { Logger } from './logging.js';

export class PeriodicTask {
  private timer: NodeJS.Timeout | null = null;
  private current: Promise<void> | null = null;
  private running = false;
  private wakeRequested = false;

  /** `pass` may answer how many milliseconds until it wants to run again; otherwise `intervalMs`. */
  constructor(
    private readonly name: string,
    private readonly intervalMs: number,
    private readonly pass: () => Promise<number | void>,
    private readonly log: Logger,
  ) {}

  /** True between start() and stop(): long passes check it to end early on shutdown. */
  get active(): boolean {
    return this.running;
  }

  start(firstDelayMs = 0): void {
    if (this.running) return;
    this.running = true;
    this.schedule(firstDelayMs);
  }

  /** A pass now, or right after the one in flight. */
  wake(): void {
    if (!this.running) return;
    if (this.current) this.wakeRequested = true;
    else this.schedule(0);
  }

  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.current;
  }

  private schedule(delayMs: number): void {
    if (!this.running) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      let next = this.intervalMs;
      this.current = this.pass()
        .then((wanted) => {
          if (typeof wanted === 'number') next = wanted;
        })
        .catch((err) => this.log.error({ err }, `${this.name} failed`))
        .finally(() => {
          this.current = null;
          const again = this.wakeRequested;
          this.wakeRequested = false;
          this.schedule(again ? 0 : next);
        });
    }, delayMs);
    this.timer.unref?.();
  }
}
