// Live terminal sessions: one PTY each, running in a sandbox, with at most one WebSocket attached.
// A dropped connection leaves the session detached for a grace period, during which it can be
// re-attached and gets its recent output replayed; after that its shell is killed.
import { Conflict } from '../core/errors.js';
import { newId } from '../core/ids.js';
import type { PtyProcess, SandboxRuntime } from '../runtime/runtime.js';
import type { ActivityThrottle } from './activity.js';
import { CLOSE, type ServerControl } from './framing.js';
import { Scrollback } from './scrollback.js';

export const MAX_SESSIONS_PER_SANDBOX = 10;

/** Where a session's output goes: the WebSocket attached to it. */
export interface TerminalViewer {
  output(chunk: Buffer): void;
  control(message: ServerControl): void;
  close(code: number, reason: string): void;
}

export interface CloseReason {
  code: number;
  reason: string;
}

export interface TerminalSession {
  readonly id: string;
  readonly sandboxId: string;
  readonly createdAt: Date;
  readonly pty: PtyProcess;
  readonly scrollback: Scrollback;
  cols: number;
  rows: number;
  lastActivityAt: Date;
  viewer: TerminalViewer | null;
  attachCount: number;
  graceTimer: NodeJS.Timeout | null;
}

export class TerminalSessions {
  private readonly bySandbox = new Map<string, Map<string, TerminalSession>>();

  constructor(
    private readonly runtime: SandboxRuntime,
    private readonly activity: ActivityThrottle,
    private readonly graceMs: number,
  ) {}

  async open(sandboxId: string, size: { cols: number; rows: number }): Promise<TerminalSession> {
    if ((this.bySandbox.get(sandboxId)?.size ?? 0) >= MAX_SESSIONS_PER_SANDBOX) {
      throw new Conflict(`this sandbox already has ${MAX_SESSIONS_PER_SANDBOX} terminal sessions; exit one first`, 'too_many_terminals');
    }
    const pty = await this.runtime.openPty(sandboxId, size);
    const now = new Date();
    const session: TerminalSession = { id: newId('term'), sandboxId, createdAt: now, pty, scrollback: new Scrollback(), ...size, lastActivityAt: now, viewer: null, attachCount: 0, graceTimer: null };
    pty.onData((chunk) => {
      session.scrollback.append(chunk);
      session.viewer?.output(chunk);
      this.touch(session);
    });
    pty.onExit((exitCode) => this.ended(session, exitCode));
    let sessions = this.bySandbox.get(sandboxId);
    if (!sessions) this.bySandbox.set(sandboxId, (sessions = new Map()));
    sessions.set(session.id, session);
    // Until a WebSocket attaches (the upgrade may never complete) the session is as good as dropped.
    this.startGrace(session);
    return session;
  }

  find(sandboxId: string, sessionId: string): TerminalSession | undefined {
    return this.bySandbox.get(sandboxId)?.get(sessionId);
  }

  list(sandboxId: string) {
    return [...(this.bySandbox.get(sandboxId)?.values() ?? [])].map((session) => ({
      id: session.id,
      created_at: session.createdAt.toISOString(),
      cols: session.cols,
      rows: session.rows,
      attached: session.viewer !== null,
      last_activity_at: session.lastActivityAt.toISOString(),
    }));
  }

  /** Attaching takes the session over from a connection still attached (a reloaded browser tab). */
  attach(session: TerminalSession, viewer: TerminalViewer): void {
    if (!this.find(session.sandboxId, session.id)) {
      viewer.close(CLOSE.sessionGone.code, CLOSE.sessionGone.reason);
      return;
    }
    this.clearGrace(session);
    session.viewer?.close(CLOSE.attachedElsewhere.code, CLOSE.attachedElsewhere.reason);
    session.viewer = viewer;
    viewer.control({ type: 'session', id: session.id, reattached: session.attachCount > 0, cols: session.cols, rows: session.rows });
    session.attachCount += 1;
    const replay = session.scrollback.contents();
    if (replay.length) viewer.output(replay);
  }

  detach(session: TerminalSession, viewer: TerminalViewer): void {
    if (session.viewer !== viewer) return;
    session.viewer = null;
    if (this.find(session.sandboxId, session.id)) this.startGrace(session);
  }

  input(session: TerminalSession, data: Buffer): void {
    session.pty.write(data);
    this.touch(session);
  }

  resize(session: TerminalSession, cols: number, rows: number): void {
    session.pty.resize(cols, rows);
    session.cols = cols;
    session.rows = rows;
  }

  /** Ends every terminal of a sandbox: each attached WebSocket is closed with `reason`, each shell killed. */
  closeTerminals(sandboxId: string, reason: CloseReason): void {
    const sessions = this.bySandbox.get(sandboxId);
    this.bySandbox.delete(sandboxId);
    this.activity.forget(sandboxId);
    for (const session of sessions?.values() ?? []) this.terminate(session, reason);
  }

  closeAll(): void {
    for (const sandboxId of [...this.bySandbox.keys()]) this.closeTerminals(sandboxId, CLOSE.serverClosing);
  }

  private terminate(session: TerminalSession, reason: CloseReason | null): void {
    this.clearGrace(session);
    if (reason) session.viewer?.close(reason.code, reason.reason);
    session.viewer = null;
    session.pty.kill();
  }

  private remove(session: TerminalSession): boolean {
    const sessions = this.bySandbox.get(session.sandboxId);
    if (!sessions?.delete(session.id)) return false;
    if (!sessions.size) this.bySandbox.delete(session.sandboxId);
    return true;
  }

  private ended(session: TerminalSession, exitCode: number): void {
    // A session already removed was closed on purpose, and its viewer told why.
    if (!this.remove(session)) return;
    this.clearGrace(session);
    session.viewer?.control({ type: 'exit', exit_code: exitCode });
    session.viewer?.close(CLOSE.shellExited.code, CLOSE.shellExited.reason);
    session.viewer = null;
  }

  private startGrace(session: TerminalSession): void {
    this.clearGrace(session);
    session.graceTimer = setTimeout(() => {
      if (this.remove(session)) this.terminate(session, null);
    }, this.graceMs);
    session.graceTimer.unref();
  }

  private clearGrace(session: TerminalSession): void {
    if (session.graceTimer) clearTimeout(session.graceTimer);
    session.graceTimer = null;
  }

  private touch(session: TerminalSession): void {
    session.lastActivityAt = new Date();
    this.activity.touch(session.sandboxId);
  }
}
