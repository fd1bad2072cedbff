// The credentials of an A2A push-notification config (the client's token and authentication), as they
// are stored in a2a_push_configs and in the outbox payloads queued for the config: sealed, each under a
// key of its own, bound to the config's id.
import type { AuthenticationInfo } from '@a2a-js/sdk';
import type { TextSealer } from '../../core/sealed-text.js';

export interface PushCredentials {
  token: string | null;
  authentication: AuthenticationInfo | null;
}

/** The token sealed, and the authentication's JSON sealed. */
export interface SealedPushCredentials {
  token: string | null;
  authentication: string | null;
}

export type PushCredentialColumn = keyof SealedPushCredentials;

export class PushCredentialSealer {
  constructor(
    private readonly tokens: TextSealer,
    private readonly authentications: TextSealer,
  ) {}

  seal(credentials: PushCredentials, configId: string): SealedPushCredentials {
    return {
      token: credentials.token === null ? null : this.tokens.seal(credentials.token, configId),
      authentication: credentials.authentication === null ? null : this.authentications.seal(JSON.stringify(credentials.authentication), configId),
    };
  }

  /** Values stored before sealing (in plain text) are answered as they are. */
  open(sealed: SealedPushCredentials, configId: string): PushCredentials {
    return {
      token: sealed.token === null ? null : this.tokens.open(sealed.token, configId),
      authentication: sealed.authentication === null ? null : (JSON.parse(this.authentications.open(sealed.authentication, configId)) as AuthenticationInfo),
    };
  }

  /** Seals one column's stored text as it is (the authentication's is already JSON). */
  sealColumn(column: PushCredentialColumn, stored: string, configId: string): string {
    return (column === 'token' ? this.tokens : this.authentications).seal(stored, configId);
  }
}
