import { describe, expect, it } from 'vitest';
import { waitFor } from '../../../test/helpers/wait-for.js';
import type { SandboxShape, SandboxSpec, WarmPoolOptions } from '../runtime.js';
import { WarmPool, type WarmPoolHost } from './warm-pool.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A host whose sandboxes are entries in a set; starts take `startMs`. */
function fakeHost(overrides: Partial<WarmPoolHost> & { startMs?: number } = {}) {
  const running = new Set<string>();
  let concurrent = 0;
  const host = {
    running,
    mostConcurrentStarts: 0,
    memoryFixedAtStart: false,
    async start(spec: SandboxSpec) {
      concurrent++;
      host.mostConcurrentStarts = Math.max(host.mostConcurrentStarts, concurrent);
      await sleep(overrides.startMs ?? 5);
      concurrent--;
      running.add(spec.id);
    },
    async destroy(id: string) {
      running.delete(id);
    },
    alive: (id: string) => running.has(id),
    templateReady: async () => true,
    ...overrides,
  };
  return host;
}

let counter = 0;
const options = (targets: Record<string, number>): WarmPoolOptions => ({
  targets,
  base: { cpus: 2, memoryMb: 512, diskGb: 5, networkMode: 'full', allowlist: [] },
  newId: () => `sbx_${++counter}`,
});
const shape = (overrides: Partial<SandboxShape> = {}): SandboxShape => ({
  template: 'python-311',
  cpus: 1,
  memoryMb: 256,
  diskGb: 5,
  networkMode: 'full',
  allowlist: [],
  ...overrides,
});

describe('WarmPool', () => {
  it('fills each template to its target, starting one sandbox at a time per template', async () => {
    const host = fakeHost();
    const pool = new WarmPool(host, options({ 'python-311': 3, 'node-22': 1 }));
    pool.start();
    await waitFor('four running sandboxes', () => host.running.size === 4);
    expect(host.mostConcurrentStarts).toBe(2);
    expect(pool.status().map((entry) => [entry.template, entry.ready.length])).toEqual([
      ['python-311', 3],
      ['node-22', 1],
    ]);
    await pool.close();
  });

  it('hands out a fitting sandbox once, and refills after the claim', async () => {
    const host = fakeHost();
    const pool = new WarmPool(host, options({ 'python-311': 1 }));
    pool.start();
    await waitFor('one ready sandbox', () => pool.status()[0].ready.length === 1);
    const id = pool.reserve(shape())!;
    expect(id).toBeTruthy();
    expect(pool.isReserved(id)).toBe(true);
    expect(pool.reserve(shape())).toBeNull();
    pool.claimed(id, true);
    await waitFor('one ready sandbox', () => pool.status()[0].ready.length === 1);
    expect(pool.status()[0]).toMatchObject({ claimed: 1, started: 2 });
    expect(pool.status()[0].ready[0]).not.toBe(id);
    await pool.close();
  });

  it('refuses shapes it was not started for: network, allowlist, disk, other templates, and memory where it is fixed at start', async () => {
    const pool = new WarmPool(fakeHost(), options({ 'python-311': 1 }));
    expect(pool.fits(shape())).toBe(true);
    expect(pool.fits(shape({ networkMode: 'none' }))).toBe(false);
    expect(pool.fits(shape({ networkMode: 'allowlist', allowlist: ['example.com'] }))).toBe(false);
    expect(pool.fits(shape({ diskGb: 1 }))).toBe(false);
    expect(pool.fits(shape({ template: 'node-22' }))).toBe(false);
    const fixed = new WarmPool(fakeHost({ memoryFixedAtStart: true }), options({ 'python-311': 1 }));
    expect(fixed.fits(shape({ memoryMb: 256 }))).toBe(false);
    expect(fixed.fits(shape({ memoryMb: 512, cpus: 4 }))).toBe(true);
  });

  it('puts a released sandbox back, and skips and replaces one that died while waiting', async () => {
    const host = fakeHost();
    const pool = new WarmPool(host, options({ 'python-311': 1 }));
    pool.start();
    await waitFor('one ready sandbox', () => pool.status()[0].ready.length === 1);
    const id = pool.reserve(shape())!;
    pool.release(id);
    expect(pool.status()[0].ready).toEqual([id]);
    host.running.delete(id);
    expect(pool.reserve(shape())).toBeNull();
    await waitFor('one ready sandbox', () => pool.status()[0].ready.length === 1);
    expect(pool.status()[0].ready[0]).not.toBe(id);
    await pool.close();
  });

  it('does nothing for a template that is not built, and waits before retrying a failed start', async () => {
    const notBuilt = fakeHost({ templateReady: async () => false });
    const idle = new WarmPool(notBuilt, options({ 'python-311': 2 }));
    idle.start();
    await sleep(20);
    expect(notBuilt.running.size).toBe(0);
    expect(idle.reserve(shape())).toBeNull();

    let attempts = 0;
    const failing = fakeHost({
      start: async () => {
        attempts++;
        throw new Error('no addresses left');
      },
    });
    const pool = new WarmPool(failing, options({ 'python-311': 2 }));
    pool.start();
    await sleep(20);
    for (let i = 0; i < 5; i++) pool.reserve(shape());
    await sleep(20);
    expect(attempts).toBe(1);
    await pool.close();
  });

  it('reports its sandboxes (starting ones too) as known, and destroys the waiting ones on close', async () => {
    const host = fakeHost({ startMs: 30 });
    const pool = new WarmPool(host, options({ 'python-311': 2 }));
    pool.start();
    await sleep(10);
    expect(pool.ids()).toHaveLength(1);
    await waitFor('two running sandboxes', () => host.running.size === 2);
    expect(pool.ids().sort()).toEqual([...host.running].sort());
    await pool.close();
    expect(host.running.size).toBe(0);
    expect(pool.reserve(shape())).toBeNull();
  });
});
