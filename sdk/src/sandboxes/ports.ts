// `sandbox.ports`: the ports a server inside the sandbox listens on, their public preview URLs, and a
// password in front of a preview.
import type { Http } from '../core/http.js';
import { sleep } from '../core/http.js';
import { TimeoutError } from '../core/errors.js';
import { segment, type PortInfo, type PortProtection } from './types.js';

const POLL_MS = 250;

export class Ports {
  constructor(
    private readonly http: Http,
    private readonly sandboxId: string,
  ) {}

  private get base(): string {
    return `/v1/sandboxes/${segment(this.sandboxId)}/ports`;
  }

  /** Ports listening on a non-loopback address (seen within about 2 s of `listen()`). */
  list(): Promise<PortInfo[]> {
    return this.http.request<PortInfo[]>('GET', this.base);
  }

  /**
   * The public URL of an HTTP server on `port`, waiting up to `timeoutMs` (default 10 s) for the server to be
   * detected. The server must listen on 0.0.0.0 and answer HTTP.
   */
  async previewUrl(port: number, options: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<string> {
    const deadline = Date.now() + (options.timeoutMs ?? 10_000);
    for (;;) {
      const found = (await this.list()).find((entry) => entry.port === port);
      if (found?.preview_url) return found.preview_url;
      if (Date.now() >= deadline) {
        const seen = found ? `it listens but did not answer HTTP (protocol ${found.protocol})` : 'nothing listens on it (bind to 0.0.0.0, not 127.0.0.1)';
        throw new TimeoutError(`port ${port} of ${this.sandboxId} has no preview URL: ${seen}`);
      }
      await sleep(POLL_MS, options.signal);
    }
  }

  /** Puts a password in front of the port's preview (browsers get a page, scripts use HTTP Basic auth). */
  protect(port: number, password: string): Promise<PortProtection> {
    return this.http.request<PortProtection>('POST', `${this.base}/${port}/protect`, { body: { password } });
  }

  /** Makes the preview public again. */
  unprotect(port: number): Promise<PortProtection> {
    return this.http.request<PortProtection>('DELETE', `${this.base}/${port}/protect`);
  }
}
