// A stand-in for the real network layer in runtime tests: one empty network namespace (loopback only)
// per sandbox, so the drivers are tested without bridges or firewall rules.
import { readdir } from 'node:fs/promises';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { NetworkMode } from '../../src/runtime/runtime.js';
import type { SandboxNetwork } from '../../src/runtime/network/index.js';

const run = promisify(execFile);
/** `prefix` keeps suites apart: reconcile only touches namespaces with its own prefix. */
export function createLoopbackNetwork(prefix = 'pdktest-'): SandboxNetwork {
  const name = (id: string): string => `${prefix}${id}`;
  return {
    async init() {},
    async attach(id: string, _mode: NetworkMode, _allowlist: string[]) {
      await run('ip', ['netns', 'add', name(id)]);
      await run('ip', ['-n', name(id), 'link', 'set', 'lo', 'up']);
      return { netnsPath: `/run/netns/${name(id)}`, ip: null };
    },
    async detach(id: string) {
      await run('ip', ['netns', 'delete', name(id)]).catch(() => {});
    },
    async reconcile(liveIds: string[]) {
      const removed: string[] = [];
      for (const entry of await readdir('/run/netns').catch(() => [] as string[])) {
        const id = entry.slice(prefix.length);
        if (entry.startsWith(prefix) && !liveIds.includes(id)) {
          await run('ip', ['netns', 'delete', entry]).catch(() => {});
          removed.push(id);
        }
      }
      return removed;
    },
    async close() {},
  };
}
