// The Paddock client: one object holding the connection settings, with a property per area of the API.
import { Http, type ClientOptions } from './core/http.js';

export class Paddock {
  /** The JSON/streaming core every area uses; also there for routes the SDK does not wrap yet. */
  readonly http: Http;

  constructor(options: ClientOptions = {}) {
    this.http = new Http(options);
    // areas: sandboxes (sdk-sandboxes helper adds its lines here)
    // areas: the others (sdk-areas helper adds its lines here)
  }
}
