// `paddock sandbox …`: create, list, inspect, pause, resume and destroy sandboxes; exec, cp, shell and
// the background-process commands live in their own files.
import type { Paddock } from '@paddock/sdk';
import { integer, JSON_OPTION, pairs, parse, positionals } from './args.js';
import { printJson, printLine, printRecord, printTable, UsageError, withProgress } from './output.js';
import { copy, exec } from './sandbox-io.js';
import { kill, logs, ps } from './processes.js';
import { shell } from './shell.js';

export const SANDBOX_USAGE = `usage: paddock sandbox <command>
  create [--template T] [--cpus N] [--memory MB] [--disk GB] [--network full|none|allowlist] [--allow HOST]...
         [--env NAME=value]... [--repo URL] [--timeout SECONDS] [--budget USD] [--no-wait]
  list [--all]                  get ID                      rm ID
  pause ID                      resume ID
  exec ID [--env NAME=value]... [--cwd DIR] [--timeout S] -- COMMAND [ARGS...]
  cp SRC DST                    (one side ID:/path; a local path or - for stdin/stdout)
  shell ID                      an interactive terminal
  ps ID [--status running|exited] [--tag T]
  logs ID PROCESS_ID [-f]       kill ID PROCESS_ID [--signal SIGTERM]
every command takes --json to print the API's JSON
`;

export async function sandboxCommand(client: () => Paddock, args: string[]): Promise<number> {
  const [verb, ...rest] = args;
  switch (verb) {
    case 'create':
      return create(client(), rest);
    case 'list':
    case 'ls':
      return list(client(), rest);
    case 'get':
      return get(client(), rest);
    case 'rm':
      return remove(client(), rest);
    case 'pause':
    case 'resume':
      return pauseOrResume(client(), verb, rest);
    case 'exec':
      return exec(client(), rest);
    case 'cp':
      return copy(client(), rest);
    case 'shell':
      return shell(client(), rest);
    case 'ps':
      return ps(client(), rest);
    case 'logs':
      return logs(client(), rest);
    case 'kill':
      return kill(client(), rest);
    default:
      throw new UsageError(verb ? `unknown sandbox command "${verb}"` : 'sandbox needs a command');
  }
}

const CREATE_OPTIONS = {
  ...JSON_OPTION,
  template: { type: 'string' },
  cpus: { type: 'string' },
  memory: { type: 'string' },
  disk: { type: 'string' },
  network: { type: 'string' },
  allow: { type: 'string', multiple: true },
  env: { type: 'string', multiple: true },
  repo: { type: 'string' },
  timeout: { type: 'string' },
  budget: { type: 'string' },
  'no-wait': { type: 'boolean' },
} as const;

async function create(paddock: Paddock, args: string[]): Promise<number> {
  const { values, positionals: rest } = parse('sandbox create', args, CREATE_OPTIONS);
  positionals('sandbox create', rest, []);
  const budget = values.budget === undefined ? undefined : Number(values.budget);
  if (budget !== undefined && !(budget > 0)) throw new UsageError(`sandbox create: --budget must be a positive number of USD, not "${values.budget}"`);
  const body = {
    template: values.template ?? 'minimal',
    cpus: integer('sandbox create', 'cpus', values.cpus),
    memory_mb: integer('sandbox create', 'memory', values.memory),
    disk_gb: integer('sandbox create', 'disk', values.disk),
    network_mode: values.network,
    allowlist: values.allow,
    env: pairs('sandbox create', 'env', values.env),
    repo: values.repo,
    timeout: integer('sandbox create', 'timeout', values.timeout),
    budget,
  };
  const sandbox = await withProgress(`creating a ${body.template} sandbox`, () =>
    paddock.sandboxes.create(withoutUndefined(body) as Parameters<Paddock['sandboxes']['create']>[0], { waitForSetup: !values['no-wait'] }),
  );
  if (values.json) printJson(sandbox.info);
  else printLine(sandbox.id);
  return 0;
}

async function list(paddock: Paddock, args: string[]): Promise<number> {
  const { values, positionals: rest } = parse('sandbox list', args, { ...JSON_OPTION, all: { type: 'boolean' } });
  positionals('sandbox list', rest, []);
  const sandboxes = await paddock.sandboxes.list({ includeDestroyed: values.all });
  if (values.json) printJson(sandboxes);
  else
    printTable(sandboxes, [
      ['id', (s) => s.id],
      ['status', (s) => s.status],
      ['template', (s) => s.template],
      ['cpus', (s) => s.cpus],
      ['memory', (s) => `${s.memory_mb} MB`],
      ['created', (s) => s.created_at],
    ]);
  return 0;
}

async function get(paddock: Paddock, args: string[]): Promise<number> {
  const { values, positionals: rest } = parse('sandbox get', args, JSON_OPTION);
  const [id] = positionals('sandbox get', rest, ['ID']);
  const { info } = await paddock.sandboxes.connect(id);
  if (values.json) printJson(info);
  else printRecord(info);
  return 0;
}

async function remove(paddock: Paddock, args: string[]): Promise<number> {
  const { values, positionals: rest } = parse('sandbox rm', args, JSON_OPTION);
  const [id] = positionals('sandbox rm', rest, ['ID']);
  await withProgress(`destroying ${id}`, async () => (await paddock.sandboxes.connect(id)).destroy());
  if (values.json) printJson({ id, status: 'destroyed' });
  else printLine(`Destroyed ${id}`);
  return 0;
}

async function pauseOrResume(paddock: Paddock, verb: 'pause' | 'resume', args: string[]): Promise<number> {
  const { values, positionals: rest } = parse(`sandbox ${verb}`, args, JSON_OPTION);
  const [id] = positionals(`sandbox ${verb}`, rest, ['ID']);
  const result = await withProgress(`${verb === 'pause' ? 'pausing' : 'resuming'} ${id}`, async () => {
    const sandbox = await paddock.sandboxes.connect(id);
    return verb === 'pause' ? sandbox.pause() : sandbox.resume();
  });
  if (values.json) printJson(result);
  else printLine(`${result.id} ${result.status}${result.snapshot_id ? ` (snapshot ${result.snapshot_id})` : ''}`);
  return 0;
}

export function withoutUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as Partial<T>;
}
