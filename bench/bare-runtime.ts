// Baselines for the sandbox benchmarks: the OCI runtime driven by hand on the same root filesystem,
// with nothing of Paddock around it (no overlay per sandbox, no disk image, no network namespace).
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { RuntimeName } from '../src/runtime/runtime.js';

const run = promisify(execFile);

export interface BareRuntime {
  /** `runc run` / `runsc run` of `true`: create, start, exit, delete. Milliseconds. */
  runOnce(): Promise<number>;
  /** `runc delete --force` / `runsc delete --force` of a running (detached) container. Milliseconds. */
  destroyOnce(): Promise<number>;
  close(): Promise<void>;
}

function binary(name: RuntimeName): string {
  return name === 'gvisor' ? 'runsc' : 'runc';
}

export async function bareRuntime(name: RuntimeName, lowerDirs: string[]): Promise<BareRuntime> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'paddock-bare-'));
  const rootfs = path.join(dir, 'rootfs');
  const state = path.join(dir, 'state');
  fs.mkdirSync(rootfs);
  fs.mkdirSync(state);
  // A read-only overlay of the template layers: the same files a sandbox sees.
  await run('mount', ['-t', 'overlay', 'overlay', '-o', `ro,lowerdir=${lowerDirs.join(':')}`, rootfs]);
  await run('runc', ['spec', '--bundle', dir]);
  const config = JSON.parse(fs.readFileSync(path.join(dir, 'config.json'), 'utf8'));
  config.root = { path: rootfs, readonly: true };
  config.process.terminal = false;
  const write = (args: string[]) => {
    config.process.args = args;
    fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify(config));
  };
  const base = name === 'gvisor' ? ['--root', state, '--network=none', '--overlay2=none'] : ['--root', state];
  const cli = (args: string[]) => run(binary(name), [...base, ...args], { cwd: dir });
  let counter = 0;
  return {
    async runOnce() {
      write(['true']);
      const id = `bare${process.pid}x${counter++}`;
      const start = performance.now();
      await cli(['run', '--bundle', dir, id]);
      const elapsed = performance.now() - start;
      await cli(['delete', '--force', id]).catch(() => undefined);
      return elapsed;
    },
    async destroyOnce() {
      write(['sleep', '600']);
      const id = `bare${process.pid}x${counter++}`;
      // Detached with its stdio on /dev/null: execFile would wait for the container's copy of its pipes.
      await new Promise<void>((resolve, reject) => {
        const child = spawn(binary(name), [...base, 'run', '--detach', '--bundle', dir, id], { cwd: dir, stdio: 'ignore' });
        child.on('error', reject);
        child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${binary(name)} run --detach exited ${code}`))));
      });
      const start = performance.now();
      await cli(['delete', '--force', id]);
      return performance.now() - start;
    },
    async close() {
      await run('umount', [rootfs]).catch(() => undefined);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** `runc exec` / `runsc exec` of `true` straight into a running sandbox's container, bypassing Paddock. */
export async function bareExec(name: RuntimeName, dataDir: string, id: string): Promise<number> {
  const root = path.join(dataDir, 'runtime', binary(name));
  const start = performance.now();
  await run(binary(name), ['--root', root, 'exec', id, '/bin/sh', '-c', 'true']);
  return performance.now() - start;
}
