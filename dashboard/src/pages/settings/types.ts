// Shapes of the account's keys and secrets, from src/accounts/schemas.ts and src/secrets/schemas.ts.
export type KeyScope = 'full' | 'sandbox' | 'read';

export interface ApiKey {
  id: string;
  name: string;
  scope: KeyScope;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
}

/** POST /v1/account/keys: the key with its value, the only time it is shown. */
export interface CreatedKey extends ApiKey {
  key: string;
}

export interface Secret {
  name: string;
  created_at: string;
  updated_at: string;
}
