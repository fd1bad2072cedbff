// `paddock serve` with PADDOCK_METRICS_LISTEN: prints where metrics are served and serves them there,
// not on the API port; a bad value stops the start with a message naming the variable.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, startServe } from '../helpers/cli.js';

const data = fs.mkdtempSync(path.join(os.tmpdir(), 'paddock-cli-metrics-'));
afterAll(() => fs.rmSync(data, { recursive: true, force: true }));

describe('paddock serve with PADDOCK_METRICS_LISTEN', () => {
  it('prints the metrics address and serves Prometheus text there, not on the API port', async () => {
    const served = await startServe(['--port', '0', '--data', data], { PADDOCK_METRICS_LISTEN: '127.0.0.1:0' });
    try {
      // Printed before the listening line, which tells that the server is ready.
      const url = /^metrics on (http:\/\/127\.0\.0\.1:\d+\/metrics)$/m.exec(served.stdout())?.[1];
      expect(url, served.stdout()).toBeDefined();
      const scrape = await fetch(url!);
      expect(scrape.status).toBe(200);
      expect(await scrape.text()).toMatch(/^# HELP paddock_http_requests_total /m);
      expect((await fetch(`${served.url}/metrics`)).status).toBe(404);
    } finally {
      served.child.kill('SIGTERM');
      expect(await served.exited, served.stderr()).toBe(0);
    }
  });

  it('refuses a bad value with a clear message', async () => {
    const result = await runCli(['serve', '--port', '0', '--data', data], { PADDOCK_METRICS_LISTEN: '9464' });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('PADDOCK_METRICS_LISTEN must be host:port (e.g. 127.0.0.1:9464, [::1]:9464) or off, got "9464"');
  });
});
