// Request and response shapes of the secrets endpoints.
import { Type, type Static } from '@sinclair/typebox';

export const SecretParams = Type.Object({
  name: Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]{0,127}$', description: 'Also the environment variable name inside sandboxes: [A-Za-z_][A-Za-z0-9_]*, up to 128 characters.' }),
});

export const PutSecretBody = Type.Object(
  { value: Type.String({ minLength: 1, maxLength: 32_768, writeOnly: true, description: 'Stored encrypted (AES-256-GCM); never returned, never logged.' }) },
  { additionalProperties: false },
);
export type PutSecretInput = Static<typeof PutSecretBody>;

export const Secret = Type.Object(
  {
    name: Type.String(),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { description: "A secret's metadata; its value is never returned." },
);
