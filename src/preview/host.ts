// Preview addresses: `<scheme>://<sandbox_id>-<port>.<preview host>`, built for the API and parsed
// from the Host header of incoming requests.
import type { Config } from '../config.js';

export interface PreviewTarget {
  sandboxId: string;
  port: number;
  /** `<sandbox_id>-<port>`: names the preview in cookies and limits. */
  label: string;
}

const LABEL = /^(sbx_[0-9a-z]{26})-(\d{1,5})\.(.+)$/;

const hostnameOf = (host: string) => host.replace(/:\d+$/, '');

export class PreviewHosts {
  private defaultHost: string | null = null;

  constructor(
    private readonly config: Pick<Config, 'previewHost' | 'previewScheme'>,
    /** The port the server listens on, for the default preview host `localhost:<port>`. */
    private readonly listenPort: () => number,
  ) {}

  get scheme(): 'http' | 'https' {
    return this.config.previewScheme;
  }

  baseHost(): string {
    if (this.config.previewHost) return this.config.previewHost;
    // The listen port is fixed once known; asking the server for it is a system call.
    if (this.defaultHost) return this.defaultHost;
    const port = this.listenPort();
    if (port) this.defaultHost = `localhost:${port}`;
    return `localhost:${port}`;
  }

  url(sandboxId: string, port: number): string {
    return `${this.config.previewScheme}://${sandboxId}-${port}.${this.baseHost()}`;
  }

  /** The preview a Host header names, or null for every other host (the API). The port of the Host is
   * not compared: behind a load balancer the public port differs from the one Paddock listens on. */
  parse(hostHeader: string | undefined): PreviewTarget | null {
    if (!hostHeader) return null;
    const match = LABEL.exec(hostHeader.toLowerCase());
    if (!match || hostnameOf(match[3]) !== hostnameOf(this.baseHost())) return null;
    const port = Number(match[2]);
    if (port < 1 || port > 65535) return null;
    return { sandboxId: match[1], port, label: `${match[1]}-${port}` };
  }
}
