// `paddock keys list | create NAME [--scope S] [--expires ISO] | revoke ID`.
import type { ApiKey, Paddock } from '@paddock/sdk';
import { JSON_OPTION, parse, positionals } from './args.js';
import { printJson, printLine, printTable, UsageError } from './output.js';

export const KEYS_USAGE = `usage: paddock keys <command>
  list                                              revoke KEY_ID
  create NAME [--scope full|sandbox|read] [--expires ISO-8601]   (prints the key once)
every command takes --json to print the API's JSON
`;

export async function keysCommand(client: () => Paddock, args: string[]): Promise<number> {
  const [verb, ...rest] = args;
  switch (verb) {
    case 'list':
    case 'ls': {
      const { values, positionals: given } = parse('keys list', rest, JSON_OPTION);
      positionals('keys list', given, []);
      const keys = await client().keys.list();
      if (values.json) printJson(keys);
      else
        printTable<ApiKey>(keys, [
          ['id', (k) => k.id],
          ['name', (k) => k.name],
          ['scope', (k) => k.scope],
          ['prefix', (k) => k.prefix],
          ['created', (k) => k.created_at],
          ['expires', (k) => k.expires_at],
        ]);
      return 0;
    }
    case 'create': {
      const { values, positionals: given } = parse('keys create', rest, { ...JSON_OPTION, scope: { type: 'string' }, expires: { type: 'string' } });
      const [name] = positionals('keys create', given, ['NAME']);
      const key = await client().keys.create({ name, scope: values.scope as ApiKey['scope'] | undefined, expires_at: values.expires });
      if (values.json) printJson(key);
      else {
        printLine(key.key ?? '');
        process.stderr.write(`Created ${key.id} (${key.scope}); the key above is shown only once.\n`);
      }
      return 0;
    }
    case 'revoke':
    case 'rm': {
      const { values, positionals: given } = parse('keys revoke', rest, JSON_OPTION);
      const [id] = positionals('keys revoke', given, ['KEY_ID']);
      await client().keys.revoke(id);
      if (values.json) printJson({ id, revoked: true });
      else printLine(`Revoked ${id}`);
      return 0;
    }
    default:
      throw new UsageError(verb ? `unknown keys command "${verb}"` : 'keys needs a command');
  }
}
