// Request and response shapes of the account endpoints; they validate input and document the API.
import { Type } from '@sinclair/typebox';
import { StringEnum } from '../core/schemas.js';

export const Account = Type.Object(
  {
    id: Type.String({ examples: ['acc_01jz8k3m2q7c9w4x5y6z7a8b9c'] }),
    email: Type.String({ format: 'email' }),
    name: Type.Union([Type.String(), Type.Null()]),
    plan: StringEnum(['free', 'pro', 'team', 'enterprise']),
    created_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'Account' },
);

const Email = Type.String({ format: 'email', minLength: 3, maxLength: 254 });

export const SignupBody = Type.Object(
  {
    email: Email,
    password: Type.String({ minLength: 8, maxLength: 1024, description: 'At least 8 characters.' }),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  },
  { additionalProperties: false },
);

export const SignupResponse = Type.Object({
  account: Type.Ref(Account),
  api_key: Type.String({ description: "The account's first full-scope API key (`svc_sk_…`). Shown only in this response." }),
});

export const LoginBody = Type.Object({ email: Type.String({ minLength: 1, maxLength: 254 }), password: Type.String({ minLength: 1, maxLength: 1024 }) }, { additionalProperties: false });

export const LoginResponse = Type.Object({
  token: Type.String({ description: 'Dashboard session token (`svc_ds_…`), accepted as a full-scope Bearer credential until `expires_at`.' }),
  expires_at: Type.String({ format: 'date-time' }),
  account: Type.Ref(Account),
});

export const Scope = Type.Union([Type.Literal('full'), Type.Literal('sandbox'), Type.Literal('read')], {
  description: '`full`: everything. `sandbox`: sandbox, port, file, exec, terminal and snapshot endpoints. `read`: GET on sandboxes and sessions.',
});

export const ApiKey = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    scope: Scope,
    prefix: Type.String({ description: 'The first characters of the key, to tell keys apart. The full value is never shown again.' }),
    created_at: Type.String({ format: 'date-time' }),
    last_used_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'Recorded with one-minute resolution.' }),
    expires_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  },
  { $id: 'ApiKey' },
);

export const CreateKeyBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100 }),
    scope: Type.Optional(Scope),
    expires_at: Type.Optional(Type.String({ format: 'date-time', description: 'ISO 8601; must be in the future. Omit for a key that never expires.' })),
  },
  { additionalProperties: false },
);

export const CreatedKey = Type.Intersect([Type.Ref(ApiKey), Type.Object({ key: Type.String({ description: 'The key value. Shown only in this response.' }) })]);

export const KeyParams = Type.Object({ id: Type.String({ maxLength: 64 }) });
