// Would the server accept this body? The same decoding (UTF-8 with replacement), the same JSON parser
// settings (secure-json-parse refusing __proto__ and constructor), the same NUL rule and the same strict
// Ajv as the server's validation. The fuzzer only sends bodies this oracle refuses, so any row a fuzzed request
// stores is a bug, never a body that happened to be valid.
import AjvModule from 'ajv';
import addFormatsModule from 'ajv-formats';
import secureJson from 'secure-json-parse';
import { findNul } from '../../../src/core/nul-guard.js';
import type { Operation } from './operations.js';

const Ajv = AjvModule.default ?? AjvModule;
const addFormats = addFormatsModule.default ?? addFormatsModule;

export type BodyCheck = (contentType: string | undefined, body: Buffer | null) => boolean;

function isJsonMediaType(contentType: string | undefined): boolean {
  return contentType !== undefined && contentType.split(';')[0].trim().toLowerCase() === 'application/json';
}

/** `accepts(operation)` answers whether a (content-type, body) pair would pass the operation's body schema. */
export function bodyOracle(operations: Operation[]) {
  const ajv = new Ajv({ coerceTypes: false, useDefaults: true, removeAdditional: false, allErrors: false, strict: false });
  addFormats(ajv);
  const validators = new Map(operations.filter((op) => op.bodySchema).map((op) => [op, ajv.compile(op.bodySchema!)]));
  return function accepts(operation: Operation, contentType: string | undefined, body: Buffer | null): boolean {
    const validate = validators.get(operation);
    if (!validate || !isJsonMediaType(contentType) || body === null) return false;
    const text = body.toString('utf8');
    if (text.trim() === '') return false;
    let value: unknown;
    try {
      value = secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
    } catch {
      return false;
    }
    // The server refuses a NUL in any body string (src/core/nul-guard.ts), except where a route takes them.
    if (operation.path !== '/v1/events/ingest' && findNul(value, 'body')) return false;
    return validate(value) as boolean;
  };
}
