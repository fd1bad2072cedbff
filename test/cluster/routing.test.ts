// Which requests are sandbox-bound, and the order placement tries workers in.
import { describe, expect, it } from 'vitest';
import { placementOrder } from '../../src/cluster/placement.js';
import { sandboxBound } from '../../src/cluster/routing.js';
import type { NodeView } from '../../src/nodes/contract.js';

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
