// The error body every endpoint outside agent delegation answers with, as one shared schema (`Error` in
// the OpenAPI document): the spec's message, the catalogue's code, and the field at fault when one is.
import { Type } from '@sinclair/typebox';
import { ERROR_CODE_NAMES, errorCodeTable, type ErrorCode } from './error-codes.js';

export const ErrorBody = Type.Object(
  {
    error: Type.String({ description: 'What went wrong, in words, naming the field or resource at fault.' }),
    code: Type.Unsafe<ErrorCode>({ type: 'string', enum: ERROR_CODE_NAMES, description: 'Machine-readable and stable: see the table above.' }),
    field: Type.Optional(Type.String({ description: 'The one field at fault, as the message names it (`body.email`, `query.limit`, `body.stages[0].command`).' })),
  },
  {
    $id: 'Error',
    description: `Every non-2xx response outside agent delegation (\`/v1/a2a\`, \`/.well-known/agent\`, which answer \`{"error": {"code", "message", "details"}}\` with the same codes).\n\n${errorCodeTable()}`,
  },
);

/** The response schema of an error status, for route schemas. */
export const ErrorResponse = Type.Ref(ErrorBody);
