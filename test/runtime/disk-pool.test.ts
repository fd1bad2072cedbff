// The pool of pre-formatted sandbox disks: refills itself per size, hands each image out once.
import { mkdir, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DiskPool } from '../../src/runtime/rootfs/disk-pool.js';
import { testDataDir } from '../helpers/runtime-environment.js';
import { waitFor } from '../helpers/wait-for.js';

describe('disk pool', () => {
  let dir: string;

  beforeAll(async () => {
    await mkdir(testDataDir, { recursive: true });
    dir = await mkdtemp(path.join(testDataDir, 'disk-pool-test-'));
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('is empty for a new size, then refills and hands out distinct formatted images', async () => {
    const pool = new DiskPool(path.join(dir, 'pool'), 2);
    const size = 1024 ** 3;
    expect(await pool.take(size, path.join(dir, 'first.img'))).toBe(false);
    await waitFor('two pooled disk images', async () => (await readdir(path.join(dir, 'pool'))).filter((name) => name.endsWith('.img')).length === 2, 10_000);
    expect(await pool.take(size, path.join(dir, 'second.img'))).toBe(true);
    expect(await pool.take(size, path.join(dir, 'third.img'))).toBe(true);
    const image = await stat(path.join(dir, 'second.img'));
    expect(image.size).toBe(size);
    expect(image.blocks * 512).toBeLessThan(64 * 1024 ** 2);
    // A refill started by the takes above must finish before the directory is removed.
    await pool.stop();
  });
});
