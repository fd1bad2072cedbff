// Which requests are sandbox-bound, where they go (and what the router remembers), where a snapshot's
// requests go, and the order placement tries workers in.
import { describe, expect, it } from 'vitest';
import { placementOrder } from '../../src/cluster/placement.js';
import { ClusterRouting, sandboxBound } from '../../src/cluster/routing.js';
import type { NodeRole } from '../../src/config.js';
import type { NodeDirectory, NodeState, NodeView } from '../../src/nodes/contract.js';

const node = (id: string, max: number, sandboxes: number) => ({ id, capacity: { cpus: 2, memory_bytes: 0, disk_bytes: 0, max_sandboxes: max }, sandboxes }) as NodeView;
const worker = (id: string, state: NodeState, alive: boolean) => ({ ...node(id, 10, 0), role: 'worker', address: `http://${id}`, state, alive }) as NodeView;

describe('sandbox-bound requests', () => {
  it('names the sandbox of every path under /v1/sandboxes/{id} and of a preview host', () => {
    for (const [method, path] of [
      ['DELETE', '/v1/sandboxes/sbx_1'],
      ['POST', '/v1/sandboxes/sbx_1/exec/stream'],
      ['GET', '/v1/sandboxes/sbx_1/terminal?ticket=t'],
      ['GET', '/v1/sandboxes/sbx_1/processes/p/output?follow=true'],
      ['GET', '/v1/sandboxes/sbx_1/files?path=/events'],
      ['GET', '/v1/sandboxes/sbx_1/events/x'],
      ['DELETE', '/v1/sandboxes/sbx_1?x=1'],
    ]) {
      expect(sandboxBound(method, path, null)).toEqual({ kind: 'sandbox', sandboxId: 'sbx_1' });
    }
    expect(sandboxBound('GET', '/anything', { sandboxId: 'sbx_2', port: 80, label: 'sbx_2-80' })).toEqual({ kind: 'sandbox', sandboxId: 'sbx_2' });
    expect(sandboxBound('GET', '/v1/sandboxes/sbx_2', { sandboxId: 'sbx_2', port: 80, label: 'sbx_2-80' })).toEqual({ kind: 'sandbox', sandboxId: 'sbx_2' });
  });

  it('leaves reading sandboxes (the list, one sandbox, its timeline) to the node the request reached', () => {
    for (const method of ['GET', 'HEAD']) {
      for (const path of [
        '/v1/sandboxes',
        '/v1/sandboxes/?limit=5',
        '/v1/sandboxes?limit=5',
        '/v1/sandboxes/sbx_1',
        '/v1/sandboxes/sbx_1?x=1',
        '/v1/sandboxes/sbx_1/events',
        '/v1/sandboxes/sbx_1/events?limit=2',
      ]) {
        expect(sandboxBound(method, path, null)).toBeNull();
      }
    }
  });

  it('tells a create from the other runtime routes, and leaves the rest alone', () => {
    expect(sandboxBound('POST', '/v1/sandboxes', null)).toEqual({ kind: 'create' });
    expect(sandboxBound('GET', '/v1/templates', null)).toEqual({ kind: 'runtime' });
    expect(sandboxBound('GET', '/v1/snapshots', null)).toEqual({ kind: 'runtime' });
    for (const path of ['/v1/sandboxesx', '/v1/sessions', '/v1/snapshotsx', '/healthz', '/v1/admin/nodes']) expect(sandboxBound('GET', path, null)).toBeNull();
  });

  it('names one snapshot, by its record, its download link, its download or its restore', () => {
    for (const [method, path] of [
      ['GET', '/v1/snapshots/snap_1'],
      ['GET', '/v1/snapshots/snap_1?x=1'],
      ['DELETE', '/v1/snapshots/snap_1'],
      ['GET', '/v1/snapshots/snap_1/download'],
      ['POST', '/v1/snapshots/snap_1/restore'],
      ['GET', '/v1/snapshot-downloads/snap_1?expires=1&signature=s'],
    ]) {
      expect(sandboxBound(method, path, null)).toEqual({ kind: 'snapshot', snapshotId: 'snap_1' });
    }
    // A segment that does not decode is passed on as it is (the local routes answer it), never thrown.
    expect(sandboxBound('GET', '/v1/snapshots/%E0%A4%A', null)).toEqual({ kind: 'snapshot', snapshotId: '%E0%A4%A' });
    expect(sandboxBound('GET', '/v1/sandboxes/%E0%A4%A/files', null)).toEqual({ kind: 'sandbox', sandboxId: '%E0%A4%A' });
  });
});

describe("routing a snapshot's requests to the node holding its archive", () => {
  // snap_2 was taken of sbx_2 on worker-2; snap_1 of sbx_1 on worker-1.
  const routing = (role: NodeRole, selfId: string, holder: NodeView) => {
    const nodes = new Map([holder, worker('worker-1', 'active', true)].map((n) => [n.id, n]));
    const directory: NodeDirectory = {
      selfId,
      get: async (id) => nodes.get(id) ?? null,
      candidates: async () => [],
      workers: async () => [...nodes.values()].filter((n) => n.alive),
    };
    const hosts: Record<string, string> = { sbx_1: 'worker-1', sbx_2: holder.id };
    const sandboxes: Record<string, string> = { snap_1: 'sbx_1', snap_2: 'sbx_2' };
    return new ClusterRouting(
      role,
      directory,
      async (id) => hosts[id] ?? null,
      async (id) => sandboxes[id] ?? null,
    );
  };
  const snapshot = (snapshotId: string) => ({ kind: 'snapshot', snapshotId }) as const;

  it('forwards to the holder when it is alive and another node, and serves it here when this node holds it', async () => {
    const holder = worker('worker-2', 'draining', true);
    for (const role of ['api', 'all', 'worker'] as const) expect(await routing(role, 'this', holder).route(snapshot('snap_2'))).toEqual({ kind: 'forward', node: holder });
    expect(await routing('worker', 'worker-2', holder).route(snapshot('snap_2'))).toEqual({ kind: 'local' });
  });

  it('leaves a snapshot whose holder is away, or an unknown one, to the local routes (an api node: to any alive worker)', async () => {
    // Authenticated there: the snapshot service answers 503 snapshot_unavailable, or 404.
    for (const state of ['lost', 'stopped', 'active'] as const) {
      const away = worker('worker-2', state, false);
      expect(await routing('worker', 'worker-1', away).route(snapshot('snap_2'))).toEqual({ kind: 'local' });
      expect(await routing('api', 'api-1', away).route(snapshot('snap_2'))).toMatchObject({ kind: 'forward', node: { id: 'worker-1' } });
    }
    const alive = worker('worker-2', 'active', true);
    expect(await routing('worker', 'worker-1', alive).route(snapshot('snap_9'))).toEqual({ kind: 'local' });
    expect(await routing('api', 'api-1', alive).route(snapshot('snap_9'))).toMatchObject({ kind: 'forward' });
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
  const routing = new ClusterRouting(
    'api',
    registry,
    async (id) => {
      lookUps.push(id);
      return id === 'sbx_known' ? 'worker-1' : null;
    },
    async () => null,
  );

  it("reads a sandbox's node once, and asks again for an id that named no sandbox", async () => {
    for (let i = 0; i < 3; i++) expect(await routing.route({ kind: 'sandbox', sandboxId: 'sbx_known' })).toMatchObject({ kind: 'forward', node: { id: 'worker-1' } });
    await routing.route({ kind: 'sandbox', sandboxId: 'sbx_missing' });
    await routing.route({ kind: 'sandbox', sandboxId: 'sbx_missing' });
    expect(lookUps).toEqual(['sbx_known', 'sbx_missing', 'sbx_missing']);
  });

  it('finds the route without waiting once the sandbox and its node are remembered, and only then', async () => {
    const fresh = new ClusterRouting(
      'api',
      registry,
      async (id) => (id === 'sbx_known' ? 'worker-1' : null),
      async () => null,
    );
    expect(fresh.known({ kind: 'sandbox', sandboxId: 'sbx_known' })).toBeNull();
    await fresh.route({ kind: 'sandbox', sandboxId: 'sbx_known' });
    expect(fresh.known({ kind: 'sandbox', sandboxId: 'sbx_known' })).toMatchObject({ kind: 'forward', node: { id: 'worker-1' } });
    expect(fresh.known({ kind: 'sandbox', sandboxId: 'sbx_missing' })).toBeNull();
    expect(fresh.known({ kind: 'create' })).toBeNull();
    expect(fresh.known({ kind: 'runtime' })).toBeNull();
  });

  it('still notices within a second that the remembered node is no longer alive', async () => {
    alive = false;
    await new Promise((resolve) => setTimeout(resolve, 1100));
    // What it remembers of the node is too old to route by without asking again.
    expect(routing.known({ kind: 'sandbox', sandboxId: 'sbx_known' })).toBeNull();
    expect(await routing.route({ kind: 'sandbox', sandboxId: 'sbx_known' })).toMatchObject({ kind: 'refuse', refusal: { code: 'node_unreachable' } });
    // A worker's sandbox whose node is down is asked about again each time: an api node has no local answer.
    expect(routing.known({ kind: 'sandbox', sandboxId: 'sbx_known' })).toBeNull();
    expect(lookUps.filter((id) => id === 'sbx_known')).toHaveLength(1);
  });
});
