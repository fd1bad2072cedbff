// Where `paddock login` keeps the server URL and API key: $PADDOCK_CONFIG, else ~/.config/paddock/config.json,
// readable by its owner only (file 0600, directory 0700). PADDOCK_URL and PADDOCK_API_KEY win over the file.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Paddock } from '@paddock/sdk';
import { CliError } from './output.js';

export interface ClientConfig {
  url: string;
  api_key: string;
}

export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.PADDOCK_CONFIG) return path.resolve(env.PADDOCK_CONFIG);
  const base = env.XDG_CONFIG_HOME || path.join(os.homedir(), '.config');
  return path.join(base, 'paddock', 'config.json');
}

export function readConfig(file = configPath()): Partial<ClientConfig> {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new CliError(`cannot read ${file}: ${(error as Error).message}`, 'config_unreadable');
  }
  try {
    const parsed = JSON.parse(text) as Partial<ClientConfig>;
    return { url: typeof parsed.url === 'string' ? parsed.url : undefined, api_key: typeof parsed.api_key === 'string' ? parsed.api_key : undefined };
  } catch {
    throw new CliError(`${file} is not valid JSON; run paddock login again`, 'config_invalid');
  }
}

/** Writes the whole file anew with mode 0600 (created so, never briefly readable by others). */
export function writeConfig(config: ClientConfig, file = configPath()): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, JSON.stringify(config, null, 2) + '\n', { mode: 0o600 });
  fs.chmodSync(temporary, 0o600);
  fs.renameSync(temporary, file);
}

export function removeConfig(file = configPath()): boolean {
  try {
    fs.unlinkSync(file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

/** The client for every command but login: environment over the config file. */
export function connect(env: NodeJS.ProcessEnv = process.env): Paddock {
  const saved = readConfig(configPath(env));
  const apiKey = env.PADDOCK_API_KEY || saved.api_key;
  if (!apiKey) throw new CliError('not logged in: run `paddock login` or set PADDOCK_API_KEY', 'not_logged_in');
  return new Paddock({ url: env.PADDOCK_URL || saved.url, apiKey });
}
