// A node-22 sandbox running a given server script, returned once the expected number of HTTP ports is
// detected: the set-up the preview tests share.
import { expect } from 'vitest';
import type { TestApp } from './app.js';
import { waitFor } from './wait-for.js';

export async function startNodeServerSandbox(t: TestApp, key: string, server: string, httpPorts: number, timeoutMs: number): Promise<string> {
  const api = (method: string, path: string, body?: object) => t.request(method, path, { token: key, body });
  const created = await api('POST', '/v1/sandboxes', { template: 'node-22', cpus: 1, memory_mb: 512, disk_gb: 1 });
  expect(created.status).toBe(201);
  const sandboxId: string = created.body.id;
  const put = await fetch(`${t.url}/v1/sandboxes/${sandboxId}/files/content?path=server.mjs`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/octet-stream' },
    body: server,
  });
  expect(put.status).toBe(200);
  await api('POST', `/v1/sandboxes/${sandboxId}/exec`, { command: 'nohup node server.mjs >/tmp/server.log 2>&1 &' });
  await waitFor(
    `the node server's ${httpPorts} HTTP port(s) to be detected`,
    async () => {
      const ports: any[] = (await api('GET', `/v1/sandboxes/${sandboxId}/ports`)).body;
      if (ports.filter((p) => p.protocol === 'http').length !== httpPorts) throw new Error(`the ports are ${JSON.stringify(ports)}`);
      return true;
    },
    timeoutMs,
    100,
  );
  return sandboxId;
}
