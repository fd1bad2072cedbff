// `paddock sandbox ps | logs [-f] | kill`: background processes of a sandbox (contract section 1).
import type { Paddock, ProcessInfo, ProcessSignal } from '@paddock/sdk';
import { JSON_OPTION, parse, positionals } from './args.js';
import { printJson, printLine, printTable, UsageError } from './output.js';

const SIGNALS: ProcessSignal[] = ['SIGTERM', 'SIGKILL', 'SIGINT', 'SIGHUP', 'SIGQUIT', 'SIGUSR1', 'SIGUSR2'];
const DROPPED = '(older output was dropped: only the last 1 MiB is kept)\n';

export async function ps(paddock: Paddock, args: string[]): Promise<number> {
  const { values, positionals: rest } = parse('sandbox ps', args, { ...JSON_OPTION, status: { type: 'string' }, tag: { type: 'string' } });
  const [id] = positionals('sandbox ps', rest, ['ID']);
  const status = values.status;
  if (status !== undefined && status !== 'running' && status !== 'exited') throw new UsageError(`sandbox ps: --status is running or exited, not "${status}"`);
  const sandbox = await paddock.sandboxes.connect(id);
  const items = (await sandbox.processes.list({ status, tag: values.tag })).map((handle) => handle.info);
  if (values.json) printJson(items);
  else
    printTable(items, [
      ['id', (p: ProcessInfo) => p.id],
      ['pid', (p) => p.os_pid],
      ['status', (p) => (p.status === 'exited' ? `exited ${p.exit_code}${p.signal ? ` (${p.signal})` : ''}` : p.status)],
      ['tag', (p) => p.tag],
      ['started', (p) => p.started_at],
      ['command', (p) => (p.command.length > 60 ? `${p.command.slice(0, 57)}...` : p.command)],
    ]);
  return 0;
}

/** What the process wrote (stdout to stdout, stderr to stderr); with -f follows it until it exits. */
export async function logs(paddock: Paddock, args: string[]): Promise<number> {
  const { values, positionals: rest } = parse('sandbox logs', args, { ...JSON_OPTION, follow: { type: 'boolean', short: 'f' }, offset: { type: 'string' } });
  const [id, processId] = positionals('sandbox logs', rest, ['ID', 'PROCESS_ID']);
  const offset = values.offset === undefined ? 0 : Number(values.offset);
  if (!Number.isInteger(offset) || offset < 0) throw new UsageError(`sandbox logs: --offset must be a byte count, not "${values.offset}"`);
  const handle = await (await paddock.sandboxes.connect(id)).processes.get(processId);
  if (!values.follow) {
    const output = await handle.output({ offset });
    if (values.json) printJson({ chunks: output.chunks, next_offset: output.nextOffset, truncated: output.truncated, status: output.status, exit_code: output.exitCode });
    else {
      if (output.truncated) process.stderr.write(DROPPED);
      for (const chunk of output.chunks) (chunk.stream === 'stderr' ? process.stderr : process.stdout).write(chunk.data);
    }
    return 0;
  }
  const line = (type: string) => (data: string) => (values.json ? printLine(JSON.stringify({ type, data })) : (type === 'stderr' ? process.stderr : process.stdout).write(data));
  const exit = await handle.attach({ offset, onStdout: line('stdout'), onStderr: line('stderr') });
  if (values.json) printLine(JSON.stringify({ type: 'exit', exit_code: exit.exitCode, signal: exit.signal }));
  return 0;
}

export async function kill(paddock: Paddock, args: string[]): Promise<number> {
  const { values, positionals: rest } = parse('sandbox kill', args, { ...JSON_OPTION, signal: { type: 'string', short: 's' } });
  const [id, processId] = positionals('sandbox kill', rest, ['ID', 'PROCESS_ID']);
  const signal = (values.signal ?? 'SIGTERM').toUpperCase().replace(/^(?!SIG)/, 'SIG') as ProcessSignal;
  if (!SIGNALS.includes(signal)) throw new UsageError(`sandbox kill: --signal is one of ${SIGNALS.join(', ')}, not "${values.signal}"`);
  const handle = await (await paddock.sandboxes.connect(id)).processes.get(processId);
  const info = await handle.kill(signal);
  if (values.json) printJson(info);
  else printLine(`Sent ${signal} to ${info.id}`);
  return 0;
}
