// The raw baseline for gVisor's memory checkpoint: a twin of the benchmarked sandbox (created through the
// same API: same template, bundle, agent, gofer mounts, overlay and network namespace), checkpointed and
// restored with the very runsc command lines the driver uses, with nothing of Paddock around them.
import { spawn, execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { readSandboxRecord } from '../src/runtime/oci/sandbox-record.js';
import { sandboxPaths } from '../src/runtime/paths.js';
import type { BenchApp } from './bench-app.js';

const run = promisify(execFile);

export interface CheckpointTwin {
  /** `runsc restore` of the checkpointed twin, timed in milliseconds. */
  restore(): Promise<number>;
  /** `runsc checkpoint` of the running twin, timed in milliseconds; then, untimed, `runsc delete` as restore needs. */
  checkpoint(): Promise<number>;
}

/** The runtime's state root for runsc under a data dir. */
export function runscRoot(dataDir: string): string {
  return path.join(dataDir, 'runtime', 'runsc');
}

/** Resolves once runsc no longer knows `id` (a checkpointed sandbox's process is reaped and its container removed). */
export async function containerGone(dataDir: string, id: string): Promise<void> {
  for (let attempt = 0; attempt < 1000; attempt++) {
    if (
      !(await run('runsc', ['--root', runscRoot(dataDir), 'state', id]).then(
        () => true,
        () => false,
      ))
    )
      return;
    await sleep(10);
  }
  throw new Error(`runsc still knows ${id} after 10 s`);
}

/**
 * Pauses `id` through the API until that takes a checkpoint (it freezes instead when runsc refuses, which
 * a heavily loaded host makes happen now and then), so its agent endpoint is closed and no host connection
 * is open, as runsc requires. Then the twin is restored and checkpointed by hand; it is left checkpointed,
 * as its record says, so the API can resume or destroy it afterwards.
 */
export async function checkpointTwin(bench: BenchApp, id: string): Promise<CheckpointTwin> {
  const dataDir = bench.dataDir;
  const paths = sandboxPaths(dataDir, id);
  let record = null;
  for (let attempt = 0; attempt < 3 && !record?.checkpointed; attempt++) {
    if (attempt > 0) await bench.api('POST', `/v1/sandboxes/${id}/resume`);
    if ((await bench.api('POST', `/v1/sandboxes/${id}/pause`)).status !== 'paused') throw new Error(`twin ${id} did not pause`);
    record = await readSandboxRecord(paths.stateFile);
  }
  if (!record?.checkpointed) throw new Error(`twin ${id} was frozen, not checkpointed, three times`);
  const netnsPath = record.netnsPath;
  const root = runscRoot(dataDir);
  const global = ['--root', root];
  // What GvisorDriver.restore runs: runsc inside the sandbox's network namespace, its own netstack.
  const restore = () =>
    new Promise<void>((resolve, reject) => {
      const child = spawn(
        'nsenter',
        [
          `--net=${netnsPath}`,
          '--',
          'runsc',
          ...global,
          '--network=none',
          '--overlay2=none',
          '--host-uds=open',
          'restore',
          '--detach',
          '--image-path',
          paths.checkpointDir,
          '--bundle',
          paths.bundleDir,
          id,
        ],
        { stdio: 'ignore' },
      );
      child.once('error', reject);
      child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`runsc restore exited with ${code}`))));
    });
  const timed = async (work: () => Promise<unknown>) => {
    const start = performance.now();
    await work();
    return performance.now() - start;
  };
  await bench.services.snapshots!.settled();
  await containerGone(dataDir, id);
  return {
    restore: () => timed(restore),
    async checkpoint() {
      fs.rmSync(paths.checkpointDir, { recursive: true, force: true });
      fs.mkdirSync(paths.checkpointDir, { mode: 0o700 });
      const checkpointMs = await timed(() => run('runsc', [...global, 'checkpoint', '--image-path', paths.checkpointDir, id]));
      await run('runsc', [...global, 'delete', '--force', id]);
      return checkpointMs;
    },
  };
}
