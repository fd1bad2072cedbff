// The metrics listener refuses to start on an address it cannot take, naming the setting.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createRegistry } from '../../src/metrics/registry.js';
import { MetricsServer } from '../../src/metrics/server.js';

const log = { error: () => {} };

describe('the metrics listener', () => {
  it('fails to start on a port already taken, naming PADDOCK_METRICS_LISTEN', async () => {
    const taken = http.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as AddressInfo;
    const server = new MetricsServer(createRegistry(), log);
    try {
      await expect(server.listen({ host: '127.0.0.1', port })).rejects.toThrow(new RegExp(`cannot serve metrics on PADDOCK_METRICS_LISTEN=127.0.0.1:${port}: .*EADDRINUSE`));
      expect(server.address()).toBeNull();
    } finally {
      await server.close();
      await new Promise((resolve) => taken.close(resolve));
    }
  });

  it('answers HEAD like GET, without a body', async () => {
    const server = new MetricsServer(createRegistry(), log);
    await server.listen({ host: '127.0.0.1', port: 0 });
    try {
      const response = await fetch(`http://127.0.0.1:${server.address()!.port}/metrics`, { method: 'HEAD' });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
      expect(await response.text()).toBe('');
    } finally {
      await server.close();
    }
  });
});
