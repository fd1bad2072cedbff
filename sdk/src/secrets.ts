// paddock.secrets: named values sandboxes and stages receive; the API never answers a value back.
import type { Http } from './core/http.js';
import { segment } from './core/paths.js';
import type { BodyOf, ResponseOf } from './core/types.js';

export type Secret = ResponseOf<'/v1/secrets/{name}', 'get'>;
export type SetSecretParams = BodyOf<'/v1/secrets/{name}', 'put'>;

export class Secrets {
  constructor(private readonly http: Http) {}

  /** Creates or replaces the secret `name`. */
  set(name: string, params: SetSecretParams): Promise<Secret> {
    return this.http.request('PUT', `/v1/secrets/${segment(name)}`, { body: params });
  }

  /** Names and times, by name. */
  list(): Promise<Secret[]> {
    return this.http.request('GET', '/v1/secrets');
  }

  /** Metadata only. */
  get(name: string): Promise<Secret> {
    return this.http.request('GET', `/v1/secrets/${segment(name)}`);
  }

  delete(name: string): Promise<void> {
    return this.http.request('DELETE', `/v1/secrets/${segment(name)}`);
  }
}
