// Rules of the ports endpoints: listing what the detector found, and setting or removing a preview password.
import type { Kysely } from 'kysely';
import { hashPassword } from '../core/passwords.js';
import type { Database } from '../core/db/schema.js';
import { Conflict } from '../core/errors.js';
import { nowIso } from '../core/time.js';
import type { PreviewHosts } from '../preview/host.js';
import type { SandboxService } from '../sandboxes/service.js';
import type { PortDetector } from './detector.js';
import * as store from './store.js';

export interface PortView {
  port: number;
  protocol: string;
  preview_url: string | null;
  protected: boolean;
  detected_at: string;
}

export class PortService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly sandboxes: SandboxService,
    private readonly detector: PortDetector,
    private readonly hosts: PreviewHosts,
  ) {}

  async list(accountId: string, sandboxId: string): Promise<PortView[]> {
    await this.sandboxes.get(accountId, sandboxId);
    const rows = await store.listeningPorts(this.db, sandboxId);
    return rows.map((row) => ({
      port: row.port,
      protocol: row.protocol,
      preview_url: row.protocol === 'http' ? this.hosts.url(sandboxId, row.port) : null,
      protected: row.protected === 1,
      detected_at: row.detected_at!,
    }));
  }

  /** A port may be protected before anything listens on it, so a server never starts out public. */
  async protect(accountId: string, sandboxId: string, port: number, password: string) {
    await this.requireLive(accountId, sandboxId);
    const passwordHash = await hashPassword(password);
    await store.setPassword(this.db, sandboxId, port, passwordHash, nowIso());
    this.detector.passwordChanged(sandboxId, port, passwordHash);
    return { port, protected: true, preview_url: this.hosts.url(sandboxId, port) };
  }

  async unprotect(accountId: string, sandboxId: string, port: number) {
    await this.requireLive(accountId, sandboxId);
    await store.setPassword(this.db, sandboxId, port, null, nowIso());
    await store.forgetIfNotListening(this.db, sandboxId, port);
    this.detector.passwordChanged(sandboxId, port, null);
    return { port, protected: false, preview_url: this.hosts.url(sandboxId, port) };
  }

  private async requireLive(accountId: string, sandboxId: string): Promise<void> {
    const sandbox = await this.sandboxes.get(accountId, sandboxId);
    if (sandbox.status === 'destroyed') throw new Conflict('sandbox is destroyed', 'sandbox_not_running');
  }
}
