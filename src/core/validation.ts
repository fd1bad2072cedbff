// Request validation: bodies are checked strictly (no type coercion, unknown fields rejected), while
// querystrings and path params coerce "20" to 20 as every HTTP client expects. Error messages name the
// offending field as `body.email`, `query.limit`, and carry it as `field` for the error body.
import AjvModule, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler, FastifySchemaValidationError } from 'fastify';

const Ajv = AjvModule.default ?? AjvModule;
const addFormats = addFormatsModule.default ?? addFormatsModule;

type Coercion = boolean | 'array';

function makeAjv(coerceTypes: Coercion) {
  const ajv = new Ajv({ coerceTypes, useDefaults: true, removeAdditional: false, allErrors: false, strict: false });
  addFormats(ajv);
  return ajv;
}

/**
 * Fastify asks for a validator once per plugin context (about ninety in this app), and a new Ajv compiles
 * the JSON Schema meta-schema before its first schema: 1.6 s of CPU at every start. So one strict and one
 * coercing Ajv serve the whole process, each shared schema added the first time a context names it, and
 * each route schema compiled once. Fastify hands each app its own copies of the schemas, so both are
 * known by their JSON; a context whose $id is already taken by a different schema gets Ajvs of its own,
 * as Fastify would have made.
 */
/** A shared schema (`addSchema`) with its JSON, worked out once for both Ajvs. */
interface SharedSchema {
  schema: { $id?: string };
  json: string;
}

class SharedAjv {
  private readonly ajv;
  /** $id → the JSON of the schema added under it. */
  private readonly added = new Map<string, string>();
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(private readonly coerceTypes: Coercion) {
    this.ajv = makeAjv(coerceTypes);
  }

  compilerFor(schemas: SharedSchema[]): (schema: object) => ValidateFunction {
    const taken = ({ schema, json }: SharedSchema) => schema.$id === undefined || (this.added.has(schema.$id) && this.added.get(schema.$id) !== json);
    if (schemas.some(taken)) {
      const own = makeAjv(this.coerceTypes);
      for (const { schema } of schemas) own.addSchema(schema);
      return (schema) => own.compile(schema);
    }
    for (const { schema, json } of schemas) {
      if (this.added.has(schema.$id!)) continue;
      this.ajv.addSchema(schema);
      this.added.set(schema.$id!, json);
    }
    return (schema) => {
      const key = JSON.stringify(schema);
      let validate = this.compiled.get(key);
      if (!validate) {
        validate = this.ajv.compile(schema);
        this.compiled.set(key, validate);
      }
      return validate;
    };
  }
}

const strictAjv = new SharedAjv(false);
const coercingAjv = new SharedAjv('array');

/** Fastify calls this once per plugin context with the shared schemas (`addSchema`) visible there. */
export function buildValidator(externalSchemas: Record<string, unknown> = {}): FastifySchemaCompiler<any> {
  const schemas = (Object.values(externalSchemas) as SharedSchema['schema'][]).map((schema) => ({ schema, json: JSON.stringify(schema) }));
  const strict = strictAjv.compilerFor(schemas);
  const coercing = coercingAjv.compilerFor(schemas);
  return ({ schema, httpPart }) => (httpPart === 'body' ? strict : coercing)(schema);
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
