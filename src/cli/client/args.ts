// Argument parsing shared by the client commands: node:util parseArgs in strict mode, with its errors
// turned into usage errors (exit code 2) that name the command.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from './output.js';

type Options = NonNullable<ParseArgsConfig['options']>;

export const JSON_OPTION = { json: { type: 'boolean' } } as const satisfies Options;

export function parse<T extends Options>(command: string, args: string[], options: T) {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(`${command}: ${(error as Error).message.replace(/\. To specify a positional.*$/s, '')}`);
  }
}

/** The positionals a command needs, by name; too few or too many is a usage error. */
export function positionals(command: string, given: string[], names: string[], optional: string[] = []): string[] {
  if (given.length < names.length) throw new UsageError(`${command}: missing ${names.slice(given.length).join(' ')}`);
  if (given.length > names.length + optional.length) throw new UsageError(`${command}: unexpected argument "${given[names.length + optional.length]}"`);
  return given;
}

export function integer(command: string, name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!Number.isInteger(number)) throw new UsageError(`${command}: --${name} must be a whole number, not "${value}"`);
  return number;
}

/** `NAME=value` pairs (repeated --env) as an object. */
export function pairs(command: string, name: string, values: string[] | undefined): Record<string, string> | undefined {
  if (!values?.length) return undefined;
  const result: Record<string, string> = {};
  for (const value of values) {
    const at = value.indexOf('=');
    if (at < 1) throw new UsageError(`${command}: --${name} takes NAME=value, not "${value}"`);
    result[value.slice(0, at)] = value.slice(at + 1);
  }
  return result;
}
