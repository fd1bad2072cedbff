// The command runner's optional fields, turned into the exec API's body.
import type { ExecRequest } from './types';

export interface ExecFormValues {
  command: string;
  cwd: string;
  env: string;
  timeout: string;
}

/** `NAME=value` a line; blank lines skipped. Throws with a message for the form on a bad line. */
export function parseEnv(text: string): Record<string, string> | undefined {
  const env: Record<string, string> = {};
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line) continue;
    const separator = line.indexOf('=');
    const name = separator > 0 ? line.slice(0, separator) : '';
    if (!/^[A-Za-z_][A-Za-z0-9_]{0,127}$/.test(name)) throw new Error(`Environment line "${line}" is not NAME=value`);
    env[name] = line.slice(separator + 1);
  }
  return Object.keys(env).length ? env : undefined;
}

export function execRequest(values: ExecFormValues): ExecRequest {
  if (!values.command.trim()) throw new Error('Type a command to run');
  const body: ExecRequest = { command: values.command };
  if (values.cwd.trim()) {
    if (!values.cwd.trim().startsWith('/')) throw new Error('The working directory must be an absolute path (starting with /)');
    body.cwd = values.cwd.trim();
  }
  const env = parseEnv(values.env);
  if (env) body.env = env;
  if (values.timeout.trim()) {
    const seconds = Number(values.timeout);
    if (!Number.isInteger(seconds) || seconds < 1 || seconds > 300) throw new Error('The timeout is whole seconds from 1 to 300');
    body.timeout = seconds;
  }
  return body;
}
