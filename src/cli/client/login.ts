// `paddock login` / `paddock logout`: ask for the server and an API key, check the key with a real call,
// and keep both in the config file.
import readline from 'node:readline/promises';
import { DEFAULT_URL, Paddock } from '@paddock/sdk';
import { parse, positionals } from './args.js';
import { configPath, readConfig, removeConfig, writeConfig } from './config.js';
import { printJson, printLine, UsageError, withProgress } from './output.js';

export async function login(args: string[]): Promise<number> {
  const { values, positionals: rest } = parse('login', args, { url: { type: 'string' }, 'api-key': { type: 'string' }, json: { type: 'boolean' } });
  positionals('login', rest, []);
  const saved = readConfig();
  const answers = readline.createInterface({ input: process.stdin, output: process.stderr, terminal: Boolean(process.stdin.isTTY) });
  let url: string;
  let apiKey: string;
  try {
    const suggested = process.env.PADDOCK_URL || saved.url || DEFAULT_URL;
    url = values.url ?? ((await answers.question(`Paddock URL [${suggested}]: `)).trim() || suggested);
    apiKey = values['api-key'] ?? (await askSecret(answers, 'API key: '));
  } finally {
    answers.close();
  }
  if (!/^https?:\/\/[^\s]+$/.test(url)) throw new UsageError(`login: the URL must start with http:// or https://, not "${url}"`);
  if (!apiKey) throw new UsageError('login: an API key is needed (--api-key or the prompt)');
  const client = new Paddock({ url, apiKey, maxRetries: 1 });
  const account = await withProgress(`checking the key with ${url}`, () => client.keys.account());
  writeConfig({ url: client.http.baseUrl, api_key: apiKey });
  if (values.json) printJson({ url: client.http.baseUrl, config: configPath(), account });
  else printLine(`Logged in to ${client.http.baseUrl} as ${account.email} (plan ${account.plan}); saved in ${configPath()}`);
  return 0;
}

export async function logout(args: string[]): Promise<number> {
  const { positionals: rest } = parse('logout', args, {});
  positionals('logout', rest, []);
  printLine(removeConfig() ? `Removed ${configPath()}` : 'Not logged in');
  return 0;
}

/** Reads a line without echoing it when stdin is a terminal. */
async function askSecret(answers: readline.Interface, prompt: string): Promise<string> {
  if (!process.stdin.isTTY) return (await answers.question(prompt)).trim();
  const output = answers as unknown as { _writeToOutput?: (text: string) => void };
  const original = output._writeToOutput;
  process.stderr.write(prompt);
  output._writeToOutput = () => {};
  try {
    return (await answers.question('')).trim();
  } finally {
    output._writeToOutput = original;
    process.stderr.write('\n');
  }
}
