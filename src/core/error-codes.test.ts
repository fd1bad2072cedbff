import { describe, expect, it } from 'vitest';
import { ErrorBody } from './error-body.js';
import { ERROR_CODE_NAMES, ERROR_CODES, errorCodeTable, genericCodeFor } from './error-codes.js';
import { BadRequest, Conflict, Forbidden, HttpError, Invalid, LimitExceeded, NotFound, TooManyRequests, Unauthorized } from './errors.js';

describe('error code catalogue', () => {
  it('gives every code an error status, a meaning, and a snake_case name', () => {
    for (const code of ERROR_CODE_NAMES) {
      expect(code).toMatch(/^[a-z]+(_[a-z]+)*$/);
      expect(ERROR_CODES[code].status).toBeGreaterThanOrEqual(400);
      expect(ERROR_CODES[code].status).toBeLessThan(600);
      expect(ERROR_CODES[code].meaning.length).toBeGreaterThan(10);
    }
  });

  it('is the enum of the shared Error schema, and its description table lists every code once', () => {
    expect(ErrorBody.properties.code.enum).toEqual(ERROR_CODE_NAMES);
    expect(ErrorBody.description).toContain(errorCodeTable());
    expect(errorCodeTable().split('\n')).toHaveLength(ERROR_CODE_NAMES.length + 2);
  });

  it('gives each typed error a default code of its own status', () => {
    const errors: HttpError[] = [
      new Invalid('body.name', 'is wrong'),
      new BadRequest('no'),
      new Unauthorized(),
      new Forbidden('no'),
      new NotFound('thing'),
      new Conflict('no'),
      new TooManyRequests('slow down', 3),
      new LimitExceeded('too many'),
    ];
    for (const error of errors) expect({ name: error.constructor.name, status: ERROR_CODES[error.code].status }).toEqual({ name: error.constructor.name, status: error.statusCode });
    expect(new Invalid('body.name', 'is wrong')).toMatchObject({ code: 'invalid_field', details: { field: 'body.name' }, message: 'body.name is wrong' });
    expect(new LimitExceeded('too many').code).toBe('plan_limit');
    expect(new Forbidden('no').code).toBe('scope_denied');
  });

  it('maps a bare framework status to a code of that status', () => {
    for (const status of [400, 401, 403, 404, 405, 408, 409, 413, 414, 415, 426, 429, 431]) expect(ERROR_CODES[genericCodeFor(status)].status).toBe(status);
    expect(genericCodeFor(418)).toBe('invalid_request');
    expect(genericCodeFor(502)).toBe('internal_error');
  });
});
