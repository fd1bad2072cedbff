// The error body of every agent-delegation route, for their response schemas (the error handler writes it).
import { Type } from '@sinclair/typebox';
import { ERROR_CODE_NAMES, type ErrorCode } from '../core/error-codes.js';

export const A2aErrorBody = Type.Object(
  {
    error: Type.Object({
      code: Type.Unsafe<ErrorCode>({
        type: 'string',
        enum: ERROR_CODE_NAMES,
        description: 'Machine-readable and stable: `agent_not_found`, `agent_disabled`, `task_not_found`, `skill_not_found`, `invalid_input`, `budget_exceeded`, `rate_limited`, `invalid_field`, …',
      }),
      message: Type.String({ description: 'What went wrong, naming the field or resource at fault.' }),
      details: Type.Object({}, { additionalProperties: true, description: '`field` names the field at fault when there is one; `errors` lists where an input misses its schema.' }),
    }),
  },
  { description: 'Every non-2xx answer of agent delegation (`/v1/a2a/*`, `/.well-known/agent*`).' },
);

/** The error statuses of an agent-delegation route, for its response schema. */
export function a2aErrors<S extends number>(...statuses: S[]): Record<S, typeof A2aErrorBody> {
  return Object.fromEntries(statuses.map((status) => [status, A2aErrorBody])) as Record<S, typeof A2aErrorBody>;
}
