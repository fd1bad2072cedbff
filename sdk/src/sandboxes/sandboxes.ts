// `paddock.sandboxes`: create and connect to sandboxes, list them, and the templates they start from.
import type { Http } from '../core/http.js';
import { connectSandbox, createSandbox, type CreateOptions, type Sandbox } from './sandbox.js';
import type { CreateSandboxParams, SandboxListItem, SandboxStatus, Template } from './types.js';

export interface ListSandboxesOptions {
  /** Only sandboxes in this status (`destroyed` ones are listed only when asked for). */
  status?: SandboxStatus;
  /** At most this many. */
  limit?: number;
  includeDestroyed?: boolean;
}

/** The server's largest page. */
const PAGE = 500;

export class Sandboxes {
  constructor(private readonly http: Http) {}

  /** Starts a sandbox from a template; resolves once it is running (see CreateOptions). */
  create(params: CreateSandboxParams, options: CreateOptions = {}): Promise<Sandbox> {
    return createSandbox(this.http, params, options);
  }

  /** A sandbox that already exists (404 `sandbox_not_found` as NotFoundError otherwise). */
  connect(id: string): Promise<Sandbox> {
    return connectSandbox(this.http, id);
  }

  /** Every sandbox of the account (newest first), all pages. */
  async list(options: ListSandboxesOptions = {}): Promise<SandboxListItem[]> {
    const items: SandboxListItem[] = [];
    for await (const item of this.iterate(options)) items.push(item);
    return items;
  }

  /** Like list, one page at a time as they are read. */
  async *iterate(options: ListSandboxesOptions = {}): AsyncGenerator<SandboxListItem> {
    const includeDestroyed = options.includeDestroyed ?? options.status === 'destroyed';
    let yielded = 0;
    for (let offset = 0; ; offset += PAGE) {
      const page = await this.http.request<SandboxListItem[]>('GET', '/v1/sandboxes', { query: { limit: PAGE, offset, include_destroyed: includeDestroyed || undefined } });
      for (const item of page) {
        if (options.status && item.status !== options.status) continue;
        yield item;
        if (options.limit !== undefined && ++yielded >= options.limit) return;
      }
      if (page.length < PAGE) return;
    }
  }

  /** The templates of this server and whether each is ready. */
  templates(): Promise<Template[]> {
    return this.http.request<Template[]>('GET', '/v1/templates');
  }
}
