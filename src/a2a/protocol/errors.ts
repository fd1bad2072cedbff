// Paddock's errors (HttpError with a catalogue code) as the A2A SDK's error classes, which its
// transport handlers map to JSON-RPC codes and HTTP+JSON statuses. The Paddock code travels in the
// error's metadata (`paddock_code`).
import { RequestMalformedError, TaskNotCancelableError, TaskNotFoundError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import { HttpError } from '../../core/errors.js';

function reason(error: HttpError): string {
  const errors = error.details.errors;
  return errors === undefined ? error.message : `${error.message}: ${typeof errors === 'string' ? errors : JSON.stringify(errors)}`;
}

/** `operation` says what a 409 means: a task that cannot be canceled, or one not waiting for an answer. */
export function protocolError(error: unknown, operation?: 'cancel' | 'answer'): unknown {
  if (!(error instanceof HttpError)) return error;
  const options = { message: reason(error), metadata: { paddock_code: String(error.code) } };
  if (error.statusCode === 404) return new TaskNotFoundError(options);
  if (error.statusCode === 409 && operation === 'cancel') return new TaskNotCancelableError(options);
  if (error.statusCode === 400) return new RequestMalformedError(options);
  if (error.statusCode >= 400 && error.statusCode < 500) return new UnsupportedOperationError(options);
  return error;
}
