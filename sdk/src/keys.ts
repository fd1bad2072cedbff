// paddock.keys: the account's API keys. A key's value is answered once, by create.
import type { Http } from './core/http.js';
import { segment } from './core/paths.js';
import type { BodyOf, ResponseOf, Schemas } from './core/types.js';

export type ApiKey = Schemas['ApiKey'];
export type CreateKeyParams = BodyOf<'/v1/account/keys', 'post'>;
/** The new key with its secret `key` (`svc_sk_…`): store it now, it is never shown again. */
export type CreatedKey = ResponseOf<'/v1/account/keys', 'post', 201>;
export type Account = Schemas['Account'];

export class Keys {
  constructor(private readonly http: Http) {}

  /** Active keys (never their values). */
  list(): Promise<ApiKey[]> {
    return this.http.request('GET', '/v1/account/keys');
  }

  /** A new key; its value is in `key`, this once. */
  create(params: CreateKeyParams): Promise<CreatedKey> {
    return this.http.request('POST', '/v1/account/keys', { body: params });
  }

  /** Revokes a key at once: requests made with it then answer 401 (AuthenticationError). */
  revoke(keyId: string): Promise<void> {
    return this.http.request('DELETE', `/v1/account/keys/${segment(keyId)}`);
  }

  /** The account the client's key belongs to. */
  account(): Promise<Account> {
    return this.http.request('GET', '/v1/account');
  }
}
