// The Paddock client: one object holding the connection settings, with a property per area of the API.
import { Http, type ClientOptions } from './core/http.js';
import { Sandboxes } from './sandboxes/sandboxes.js';

export class Paddock {
  /** The JSON/streaming core every area uses; also there for routes the SDK does not wrap yet. */
  readonly http: Http;
  /** Sandboxes: create, connect, list; each `Sandbox` has commands, processes, files, terminal, ports, snapshots. */
  readonly sandboxes: Sandboxes;

  constructor(options: ClientOptions = {}) {
    this.http = new Http(options);
    this.sandboxes = new Sandboxes(this.http);
    // areas: the others (sdk-areas helper adds its lines here)
  }
}
