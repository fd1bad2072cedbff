// Which requests are sandbox-bound, where they go (and what the router remembers), and the order
// placement tries workers in.
import { describe, expect, it } from 'vitest';
import { placementOrder } from '../../src/cluster/placement.js';
import { ClusterRouting, sandboxBound } from '../../src/cluster/routing.js';
import type { NodeDirectory, NodeView } from '../../src/nodes/contract.js';

const node = (id: string, max: number, sandboxes: number) => ({ id, capacity: { cpus: 2, memory_bytes: 0, disk_bytes: 0, max_sandboxes: max }, sandboxes }) as NodeView;

describe('sandbox-bound requests', () => {
  it('names the sandbox of every path under /v1/sandboxes/{id} and of a preview host', () => {
    for (const path of [
      '/v1/sandboxes/sbx_1',
      '/v1/sandboxes/sbx_1/exec/stream',
      '/v1/sandboxes/sbx_1/terminal?ticket=t',
      '/v1/sandboxes/sbx_1/processes/p/output?follow=true',
      '/v1/sandboxes/sbx_1?x=1',
    ]) {
      expect(sandboxBound('GET', path, null)).toEqual({ kind: 'sandbox', sandboxId: 'sbx_1' });
    }
    expect(sandboxBound('GET', '/anything', { sandboxId: 'sbx_2', port: 80, label: 'sbx_2-80' })).toEqual({ kind: 'sandbox', sandboxId: 'sbx_2' });
  });

  it('tells a create from the list and the other runtime routes, and leaves the rest alone', () => {
    expect(sandboxBound('POST', '/v1/sandboxes', null)).toEqual({ kind: 'create' });
    expect(sandboxBound('GET', '/v1/sandboxes?limit=5', null)).toEqual({ kind: 'runtime' });
    expect(sandboxBound('POST', '/v1/snapshots/snap_1/restore', null)).toEqual({ kind: 'runtime' });
    expect(sandboxBound('GET', '/v1/templates', null)).toEqual({ kind: 'runtime' });
    for (const path of ['/v1/sandboxesx', '/v1/sessions', '/v1/snapshotsx', '/healthz', '/v1/admin/nodes']) expect(sandboxBound('GET', path, null)).toBeNull();
  });
});

describe('placement order', () => {
  it('puts the freer of two random picks first, and every candidate once', () => {
    const nodes = [node('a', 10, 9), node('b', 10, 2), node('c', 10, 5)];
    const picks = [0, 0.5]; // a and b: b is freer
    let i = 0;
    const order = placementOrder(nodes, null, () => picks[i++ % picks.length]);
    expect(order[0].id).toBe('b');
    expect(order.map((n) => n.id).sort()).toEqual(['a', 'b', 'c']);
  });

  it('puts the preferred node first when it is a candidate', () => {
    expect(placementOrder([node('a', 10, 0), node('self', 10, 9)], 'self')[0].id).toBe('self');
    expect(placementOrder([node('a', 10, 0)], 'self').map((n) => n.id)).toEqual(['a']);
  });
});

describe('routing a sandbox-bound request on an api node', () => {
  const worker = (alive: boolean) => ({ id: 'worker-1', role: 'worker', alive, address: 'http://10.0.0.2:8080' }) as NodeView;
  let alive = true;
  const registry: NodeDirectory = {
    selfId: 'api-1',
    get: async (id) => (id === 'worker-1' ? worker(alive) : null),
    candidates: async () => [],
    workers: async () => (alive ? [worker(true)] : []),
  };
  const lookUps: string[] = [];
  const routing = new ClusterRouting('api', registry, async (id) => {
    lookUps.push(id);
    return id === 'sbx_known' ? 'worker-1' : null;
  });

  it("reads a sandbox's node once, and asks again for an id that named no sandbox", async () => {
    for (let i = 0; i < 3; i++) expect(await routing.route({ kind: 'sandbox', sandboxId: 'sbx_known' })).toMatchObject({ kind: 'forward', node: { id: 'worker-1' } });
    await routing.route({ kind: 'sandbox', sandboxId: 'sbx_missing' });
    await routing.route({ kind: 'sandbox', sandboxId: 'sbx_missing' });
    expect(lookUps).toEqual(['sbx_known', 'sbx_missing', 'sbx_missing']);
  });

  it('still notices within a second that the remembered node is no longer alive', async () => {
    alive = false;
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect(await routing.route({ kind: 'sandbox', sandboxId: 'sbx_known' })).toMatchObject({ kind: 'refuse', refusal: { code: 'node_unreachable' } });
    expect(lookUps.filter((id) => id === 'sbx_known')).toHaveLength(1);
  });
});
