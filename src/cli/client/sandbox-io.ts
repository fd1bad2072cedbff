// `paddock sandbox exec` (streams output, exits with the command's code) and `paddock sandbox cp`
// (a file between this machine and a sandbox, `ID:/path` naming the sandbox side).
// --json prints the exec route's own JSON, so that one call is made on paddock.http rather than commands.run.
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Paddock } from '@paddock/sdk';
import { integer, JSON_OPTION, pairs, parse } from './args.js';
import { CliError, printJson, printLine, UsageError, withProgress } from './output.js';

/** Arguments after `--` are one shell command: a single argument as written, several each quoted. */
export function commandLine(words: string[]): string {
  if (words.length === 1) return words[0];
  return words.map((word) => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`)).join(' ');
}

export async function exec(paddock: Paddock, args: string[]): Promise<number> {
  const dash = args.indexOf('--');
  const before = dash === -1 ? args : args.slice(0, dash);
  const { values, positionals: rest } = parse('sandbox exec', before, { ...JSON_OPTION, env: { type: 'string', multiple: true }, cwd: { type: 'string' }, timeout: { type: 'string' } });
  const [id, ...inline] = rest;
  if (!id) throw new UsageError('sandbox exec: missing ID');
  const words = dash === -1 ? inline : [...inline, ...args.slice(dash + 1)];
  if (!words.length) throw new UsageError('sandbox exec: missing the command (sandbox exec ID -- COMMAND)');
  const body = { command: commandLine(words), env: pairs('sandbox exec', 'env', values.env), cwd: values.cwd, timeout: integer('sandbox exec', 'timeout', values.timeout) };
  const target = `/v1/sandboxes/${encodeURIComponent(id)}/exec`;
  if (values.json) {
    const result = await withProgress(`running in ${id}`, () => paddock.http.request<{ exit_code: number; error?: string }>('POST', target, { body, timeoutMs: 0 }));
    printJson(result);
    return result.error ? 1 : result.exit_code;
  }
  const sandbox = await paddock.sandboxes.connect(id);
  const result = await sandbox.commands.run(body.command, {
    env: body.env,
    cwd: body.cwd,
    timeoutMs: body.timeout === undefined ? undefined : body.timeout * 1000,
    onStdout: (data) => process.stdout.write(data),
    onStderr: (data) => process.stderr.write(data),
  });
  if (result.timedOut) process.stderr.write(`error: the command ran past its timeout and was killed (timed_out)\n`);
  return result.exitCode;
}

/** `ID:/path` → the sandbox side; anything else (including `./a:b`) is local. */
export function remoteSpec(spec: string): { id: string; path: string } | null {
  const match = /^([A-Za-z0-9_-]+):(.+)$/.exec(spec);
  return match ? { id: match[1], path: match[2] } : null;
}

export async function copy(paddock: Paddock, args: string[]): Promise<number> {
  const { values, positionals: rest } = parse('sandbox cp', args, JSON_OPTION);
  if (rest.length !== 2) throw new UsageError('sandbox cp: needs SRC and DST, one of them ID:/path');
  const [source, destination] = rest.map(remoteSpec);
  if (source && destination) throw new UsageError('sandbox cp: copy between two sandboxes through this machine: cp ID:/a file, then cp file ID2:/b');
  if (!source && !destination) throw new UsageError('sandbox cp: one side must be ID:/path');
  let result: { path: string; size: number };
  if (destination) {
    const local = rest[0];
    let data: Buffer;
    try {
      data = local === '-' ? await readAll(process.stdin) : fs.readFileSync(local);
    } catch (error) {
      throw new CliError(`cannot read ${local}: ${(error as Error).message}`, 'local_file_unreadable');
    }
    const remote = destination.path.endsWith('/') && local !== '-' ? destination.path + path.basename(local) : destination.path;
    result = await withProgress(`uploading to ${destination.id}:${remote}`, async () => (await paddock.sandboxes.connect(destination.id)).files.write(remote, new Uint8Array(data)));
  } else {
    const remote = source!;
    let local = rest[1];
    if (local !== '-' && fs.existsSync(local) && fs.statSync(local).isDirectory()) local = path.join(local, path.posix.basename(remote.path));
    const download = await (await paddock.sandboxes.connect(remote.id)).files.download(remote.path);
    const body = Readable.fromWeb(download as import('node:stream/web').ReadableStream<Uint8Array>);
    let size = 0;
    body.on('data', (chunk: Buffer) => (size += chunk.length));
    await withProgress(`downloading ${remote.id}:${remote.path}`, () => pipeline(body, local === '-' ? process.stdout : fs.createWriteStream(local, { mode: 0o644 })));
    result = { path: local, size };
  }
  if (values.json) printJson(result);
  else if (rest[1] !== '-') printLine(`${result.size} bytes → ${destination ? `${destination.id}:${result.path}` : result.path}`);
  return 0;
}

async function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks);
}
