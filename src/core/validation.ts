// Request validation: bodies are checked strictly (no type coercion, unknown fields rejected), while
// querystrings and path params coerce "20" to 20 as every HTTP client expects. Error messages name the
// offending field as `body.email`, `query.limit`, and carry it as `field` for the error body.
import AjvModule, { type ErrorObject } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler, FastifySchemaValidationError } from 'fastify';

const Ajv = AjvModule.default ?? AjvModule;
const addFormats = addFormatsModule.default ?? addFormatsModule;

function makeAjv(coerceTypes: boolean | 'array', externalSchemas: Record<string, unknown>) {
  const ajv = new Ajv({ coerceTypes, useDefaults: true, removeAdditional: false, allErrors: false, strict: false });
  addFormats(ajv);
  for (const schema of Object.values(externalSchemas)) ajv.addSchema(schema as object);
  return ajv;
}

/** Fastify calls this once per plugin context with the shared schemas (`addSchema`) visible there. */
export function buildValidator(externalSchemas: Record<string, unknown> = {}): FastifySchemaCompiler<any> {
  const strictAjv = makeAjv(false, externalSchemas);
  const coercingAjv = makeAjv('array', externalSchemas);
  return ({ schema, httpPart }) => (httpPart === 'body' ? strictAjv : coercingAjv).compile(schema);
}

function fieldPath(dataVar: string, error: FastifySchemaValidationError): string {
  const part = dataVar === 'querystring' ? 'query' : dataVar;
  const segments = error.instancePath.split('/').filter(Boolean);
  return [part, ...segments].join('.');
}

export function describeValidationError(errors: FastifySchemaValidationError[], dataVar: string): Error {
  const error = errors[0] as ErrorObject;
  const at = fieldPath(dataVar, error);
  const params = error.params as Record<string, unknown>;
  let message: string;
  let field = at;
  switch (error.keyword) {
    case 'required':
      field = `${at}.${params.missingProperty}`;
      message = `${field} is required`;
      break;
    case 'additionalProperties':
      field = `${at}.${params.additionalProperty}`;
      message = `${field} is not a known field`;
      break;
    case 'enum':
      message = `${at} must be one of: ${(params.allowedValues as unknown[]).join(', ')}`;
      break;
    case 'type':
      message = `${at} must be ${params.type === 'object' ? 'an object' : params.type === 'array' ? 'an array' : `a ${params.type}`}`;
      break;
    default:
      message = `${at} ${error.message}`;
  }
  const result = new Error(message) as Error & { statusCode: number; code: string; field: string; validation: unknown };
  result.statusCode = 400;
  result.code = 'invalid_field';
  result.field = field;
  result.validation = errors;
  return result;
}
