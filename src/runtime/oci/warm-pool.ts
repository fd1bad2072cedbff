// Pre-started sandboxes per template, so a create that fits is answered by claiming one instead of
// starting one (E2B and Daytona keep such pools too). One refill at a time per template, in the background.
import type { SandboxShape, SandboxSpec, WarmPoolOptions, WarmPoolStatus } from '../runtime.js';

/** What the pool needs from the runtime that owns it. */
export interface WarmPoolHost {
  /** Starts a sandbox the normal way; resolves once it can run a command at once. */
  start(spec: SandboxSpec): Promise<void>;
  destroy(id: string): Promise<void>;
  /** Cheap and synchronous: whether the sandbox still answers (its agent holds a connection). */
  alive(id: string): boolean;
  templateReady(template: string): Promise<boolean>;
  /** The Sentry of gVisor sizes its memory (MemTotal inside) at start: only the same memory_mb fits. */
  readonly memoryFixedAtStart: boolean;
}

/** After a failed start, the template's pool waits this long before trying again. */
const retryAfterFailureMs = 30_000;

export class WarmPool {
  /** Ready sandbox ids per template, oldest first. */
  private readonly ready = new Map<string, string[]>();
  /** Handed out by `reserve`, not yet claimed or released: id → template. */
  private readonly reserved = new Map<string, string>();
  /** Ids being started for the pool right now. */
  private readonly starting = new Set<string>();
  private readonly filling = new Map<string, Promise<void>>();
  /** A refill was asked for while one ran: run another pass after it. */
  private readonly refillAgain = new Set<string>();
  private readonly retryAt = new Map<string, number>();
  private readonly retryTimers = new Set<NodeJS.Timeout>();
  private readonly notBuiltLogged = new Set<string>();
  private readonly counters = new Map<string, { claimed: number; started: number }>();
  private closed = false;

  constructor(
    private readonly host: WarmPoolHost,
    private readonly options: WarmPoolOptions,
  ) {}

  start(): void {
    for (const template of Object.keys(this.options.targets)) this.refill(template);
  }

  /** Every sandbox the pool owns, started or starting: a reconcile must leave them alone. */
  ids(): string[] {
    return [...[...this.ready.values()].flat(), ...this.reserved.keys(), ...this.starting];
  }

  fits(shape: SandboxShape): boolean {
    const { base } = this.options;
    return (
      (this.options.targets[shape.template] ?? 0) > 0 &&
      shape.networkMode === base.networkMode &&
      shape.allowlist.length === 0 &&
      base.allowlist.length === 0 &&
      shape.diskGb === base.diskGb &&
      (!this.host.memoryFixedAtStart || shape.memoryMb === base.memoryMb)
    );
  }

  reserve(shape: SandboxShape): string | null {
    if (this.closed || !this.fits(shape)) return null;
    const ids = this.ready.get(shape.template) ?? [];
    while (ids.length) {
      const id = ids.shift()!;
      if (this.host.alive(id)) {
        this.reserved.set(id, shape.template);
        return id;
      }
      // Died while it waited (killed, out of memory on the host): not worth handing out.
      this.options.log?.warn({ sandbox_id: id, template: shape.template }, 'warm pool sandbox stopped answering; replacing it');
      void this.host.destroy(id).catch(() => {});
    }
    this.refill(shape.template);
    return null;
  }

  isReserved(id: string): boolean {
    return this.reserved.has(id);
  }

  /** The reserved sandbox became a user's sandbox (or could not, `succeeded` false, and was destroyed). */
  claimed(id: string, succeeded: boolean): void {
    const template = this.reserved.get(id);
    if (!template) return;
    this.reserved.delete(id);
    if (succeeded) this.countersOf(template).claimed++;
    this.refill(template);
  }

  release(id: string): void {
    const template = this.reserved.get(id);
    if (!template) return;
    this.reserved.delete(id);
    if (this.closed) void this.host.destroy(id).catch(() => {});
    else this.readyOf(template).unshift(id);
  }

  status(): WarmPoolStatus[] {
    return Object.entries(this.options.targets).map(([template, target]) => ({
      template,
      target,
      ready: [...(this.ready.get(template) ?? [])],
      ...this.countersOf(template),
    }));
  }

  /** No more refills; waits for the ones under way and destroys every sandbox not handed out. */
  async close(): Promise<void> {
    this.closed = true;
    for (const timer of this.retryTimers) clearTimeout(timer);
    this.retryTimers.clear();
    await Promise.allSettled([...this.filling.values()]);
    const ids = [...this.ready.values()].flat();
    this.ready.clear();
    await Promise.allSettled(ids.map((id) => this.host.destroy(id)));
  }

  private refill(template: string): void {
    if (this.closed || !((this.options.targets[template] ?? 0) > 0)) return;
    if (this.filling.has(template)) {
      this.refillAgain.add(template);
      return;
    }
    if (Date.now() < (this.retryAt.get(template) ?? 0)) return;
    const work = this.fill(template)
      .catch((error: unknown) => this.options.log?.warn({ err: error, template }, 'warm pool refill failed'))
      .finally(() => {
        this.filling.delete(template);
        if (this.refillAgain.delete(template)) this.refill(template);
      });
    this.filling.set(template, work);
  }

  private async fill(template: string): Promise<void> {
    if (!(await this.host.templateReady(template))) {
      if (!this.notBuiltLogged.has(template)) this.options.log?.info({ template }, 'warm pool skips a template that is not built');
      this.notBuiltLogged.add(template);
      return;
    }
    this.notBuiltLogged.delete(template);
    const target = this.options.targets[template];
    while (!this.closed && this.readyOf(template).length < target) {
      const id = this.options.newId();
      this.starting.add(id);
      try {
        await this.host.start({ id, template, ...this.options.base, env: {} });
      } catch (error) {
        this.options.log?.warn({ err: error, template }, `warm pool could not start a sandbox; trying again in ${retryAfterFailureMs / 1000} s`);
        this.retryLater(template);
        return;
      } finally {
        this.starting.delete(id);
      }
      if (this.closed) {
        await this.host.destroy(id).catch(() => {});
        return;
      }
      this.readyOf(template).push(id);
      this.countersOf(template).started++;
    }
  }

  private retryLater(template: string): void {
    this.retryAt.set(template, Date.now() + retryAfterFailureMs);
    const timer = setTimeout(() => {
      this.retryTimers.delete(timer);
      this.retryAt.delete(template);
      this.refill(template);
    }, retryAfterFailureMs);
    timer.unref();
    this.retryTimers.add(timer);
  }

  private readyOf(template: string): string[] {
    let ids = this.ready.get(template);
    if (!ids) this.ready.set(template, (ids = []));
    return ids;
  }

  private countersOf(template: string): { claimed: number; started: number } {
    let counters = this.counters.get(template);
    if (!counters) this.counters.set(template, (counters = { claimed: 0, started: 0 }));
    return counters;
  }
}
