// Definitions given as files (`pipeline apply -f`, `agent create -f`): YAML, which also reads JSON.
import fs from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { CliError } from './output.js';

/** One mapping from FILE (`-` for stdin). */
export function readDefinitionFile(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = file === '-' ? fs.readFileSync(0, 'utf8') : fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new CliError(`cannot read ${file}: ${(error as Error).message}`, 'local_file_unreadable');
  }
  let definition: unknown;
  try {
    definition = parseYaml(text);
  } catch (error) {
    throw new CliError(`${file} is not valid YAML or JSON: ${(error as Error).message.split('\n')[0]}`, 'invalid_definition');
  }
  if (typeof definition !== 'object' || definition === null || Array.isArray(definition)) throw new CliError(`${file} must hold one mapping (field: value, …)`, 'invalid_definition');
  return definition as Record<string, unknown>;
}
