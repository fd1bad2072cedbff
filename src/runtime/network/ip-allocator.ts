// Sandbox IP leases, one file per address under the state dir. Creating the file with O_EXCL claims the
// address atomically (safe across processes too); the file keeps the sandbox's network settings so a
// restarted Paddock can resume allowlist refreshes and clean up what is not live.
import { mkdir, open, readFile, readdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { NetworkMode } from '../runtime.js';
import { formatIpv4, parseIpv4 } from './ipv4.js';

export interface Lease {
  id: string;
  ip: string;
  mode: NetworkMode;
  allowlist: string[];
}

export class AddressesExhausted extends Error {
  constructor(subnet: string) {
    super(`no free sandbox address left in ${subnet}`);
    this.name = 'AddressesExhausted';
  }
}

export class IpAllocator {
  private readonly dir: string;
  private readonly byId = new Map<string, Lease>();
  private cursor: number;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    stateDir: string,
    private readonly firstHost: number,
    private readonly lastHost: number,
    private readonly subnetText: string,
  ) {
    this.dir = join(stateDir, 'leases');
    this.cursor = firstHost;
  }

  async load(): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    this.byId.clear();
    for (const name of await readdir(this.dir)) {
      const address = parseIpv4(name);
      if (address === null || address < this.firstHost || address > this.lastHost) continue;
      const lease = await this.readLease(name);
      // An unreadable lease is a claim interrupted by a crash before its content was written.
      if (lease) this.byId.set(lease.id, lease);
      else await unlink(join(this.dir, name)).catch(() => undefined);
    }
  }

  get(id: string): Lease | undefined {
    return this.byId.get(id);
  }

  all(): Lease[] {
    return [...this.byId.values()];
  }

  /** Claims an address for `id`, or returns its existing lease with the new settings stored. */
  allocate(id: string, mode: NetworkMode, allowlist: string[]): Promise<Lease> {
    return this.serialized(async () => {
      const existing = this.byId.get(id);
      if (existing) {
        const updated = { ...existing, mode, allowlist };
        await this.writeLease(updated, 'w');
        this.byId.set(id, updated);
        return updated;
      }
      const size = this.lastHost - this.firstHost + 1;
      for (let tried = 0; tried < size; tried++) {
        const address = this.cursor;
        this.cursor = address >= this.lastHost ? this.firstHost : address + 1;
        const lease: Lease = { id, ip: formatIpv4(address), mode, allowlist };
        if (await this.writeLease(lease, 'wx')) {
          this.byId.set(id, lease);
          return lease;
        }
      }
      throw new AddressesExhausted(this.subnetText);
    });
  }

  release(id: string): Promise<void> {
    return this.serialized(async () => {
      const lease = this.byId.get(id);
      if (!lease) return;
      await unlink(join(this.dir, lease.ip)).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOENT') throw error;
      });
      this.byId.delete(id);
    });
  }

  private serialized<T>(work: () => Promise<T>): Promise<T> {
    const result = this.queue.then(work, work);
    this.queue = result.catch(() => undefined);
    return result;
  }

  /** Returns false when `flag` is 'wx' and the address is already claimed. */
  private async writeLease(lease: Lease, flag: 'w' | 'wx'): Promise<boolean> {
    let handle;
    try {
      handle = await open(join(this.dir, lease.ip), flag, 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw error;
    }
    try {
      await handle.writeFile(JSON.stringify(lease));
      await handle.sync();
    } finally {
      await handle.close();
    }
    return true;
  }

  private async readLease(name: string): Promise<Lease | null> {
    try {
      const lease = JSON.parse(await readFile(join(this.dir, name), 'utf8')) as Lease;
      return typeof lease.id === 'string' && lease.ip === name ? lease : null;
    } catch {
      return null;
    }
  }
}
