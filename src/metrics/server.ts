// The metrics listener: GET /metrics on its own address (PADDOCK_METRICS_LISTEN), never on the API
// port, so no account key can read it (it counts every account's sandboxes and deliveries). Who can
// reach this address is the operator's network decision (loopback, a private interface, a firewall).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import type { ListenAddress } from '../config.js';

export const METRICS_PATH = '/metrics';

export interface MetricsLogger {
  error(obj: object, msg: string): void;
}

function answer(response: http.ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store', ...headers });
  response.end(text);
}

export class MetricsServer {
  private readonly server: http.Server;

  constructor(registry: Registry, log: MetricsLogger) {
    this.server = http.createServer((request, response) => {
      const path = (request.url ?? '/').split('?')[0];
      if (path !== METRICS_PATH) return answer(response, 404, `not found: this listener serves only GET ${METRICS_PATH}\n`);
      if (request.method !== 'GET' && request.method !== 'HEAD') return answer(response, 405, `method not allowed: ${METRICS_PATH} answers GET\n`, { allow: 'GET, HEAD' });
      registry.metrics().then(
        (text) => answer(response, 200, text, { 'content-type': registry.contentType }),
        (err: unknown) => {
          log.error({ err }, 'collecting metrics failed');
          answer(response, 500, 'collecting metrics failed; see the server log\n');
        },
      );
    });
  }

  /** Fails (EADDRINUSE, EACCES…) rather than starting without the metrics the operator asked for. */
  async listen(address: ListenAddress): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      const fail = (err: Error) => reject(new Error(`cannot serve metrics on PADDOCK_METRICS_LISTEN=${address.host}:${address.port}: ${err.message}`));
      this.server.once('error', fail);
      this.server.listen(address.port, address.host, () => {
        this.server.off('error', fail);
        resolve();
      });
    });
  }

  /** The address listened on (the port chosen when 0 was asked), or null before listen. */
  address(): ListenAddress | null {
    const bound = this.server.address() as AddressInfo | null;
    return bound ? { host: bound.address, port: bound.port } : null;
  }

  async close(): Promise<void> {
    if (!this.server.listening) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
