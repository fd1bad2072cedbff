// Commands and terminals in an OCI sandbox: over its agent when one answers, else through the
// runtime's own `exec`.
import { setTimeout as sleep } from 'node:timers/promises';
import { AgentConnectionLost, runOverAgent } from '../agent/run-command.js';
import { SandboxNotRunning } from '../errors.js';
import type { ExecRequest, ExecResult, PtyProcess, PtyRequest } from '../runtime.js';
import { extraEnvironment } from './bundle.js';
import { runPreparedExec } from './exec-process.js';
import { agentWaitMs, type LiveSandboxes } from './live-sandboxes.js';
import { spawnPty } from './pty.js';
import type { SandboxRecord } from './sandbox-record.js';

export async function execInSandbox(live: LiveSandboxes, id: string, request: ExecRequest): Promise<ExecResult> {
  const record = await live.runningRecord(id);
  const argv = request.argv && request.argv.length > 0 ? request.argv : ['/bin/sh', '-c', request.command];
  const cwd = request.cwd ?? '/workspace';
  const connection = record.agent ? await live.agents.get(id)?.acquire(agentWaitMs) : null;
  if (!connection) return execThroughRuntime(live, record, argv, cwd, request);
  try {
    // The agent's own environment is the one the sandbox started with: a claimed pool sandbox's lacks the sandbox env.
    return await runOverAgent(connection, { argv, cwd, env: extraEnvironment({ ...record.env, ...request.env }), stdin: request.stdin }, request);
  } catch (error) {
    // A sandbox that is going down takes a moment to be reported so (gVisor's sandbox process exits last).
    if (error instanceof AgentConnectionLost) {
      for (let attempt = 0; attempt < 10; attempt++, await sleep(100)) await requireRunning(live, id);
    }
    throw error;
  }
}

/** `runc exec` / `runsc exec`: for sandboxes without an agent, or when it does not answer. */
async function execThroughRuntime(live: LiveSandboxes, record: SandboxRecord, argv: string[], cwd: string, request: ExecRequest): Promise<ExecResult> {
  const { id } = record;
  const prepared = live.driver.prepareExec(id, live.paths(id).dir, {
    args: argv,
    // The runtimes start exec'd processes from the env the container started with, which a claimed pool
    // sandbox started without the sandbox env: it goes on the command line with the extras.
    env: extraEnvironment({ ...record.env, ...request.env }),
    cwd,
    tty: false,
  });
  const result = await runPreparedExec(prepared, request);
  // A runtime that cannot reach the container also exits non-zero; tell that apart from the command failing.
  if (result.exitCode !== 0 && !result.timedOut) await requireRunning(live, id);
  return result;
}

async function requireRunning(live: LiveSandboxes, id: string): Promise<void> {
  const status = await live.driver.status(id);
  if (status !== 'running') throw new SandboxNotRunning(id, status === 'paused' ? 'paused' : 'stopped');
}

export async function openSandboxPty(live: LiveSandboxes, id: string, request: PtyRequest): Promise<PtyProcess> {
  const record = await live.runningRecord(id);
  const prepared = live.driver.prepareExec(id, live.paths(id).dir, {
    // The runtime sizes the terminal a moment after the shell starts; set the size first so the very
    // first command already sees it.
    args: ['/bin/sh', '-c', `stty rows ${Math.trunc(request.rows)} cols ${Math.trunc(request.cols)} 2>/dev/null; if command -v bash >/dev/null 2>&1; then exec bash -l; else exec sh -l; fi`],
    env: extraEnvironment({ ...record.env, TERM: 'xterm-256color', ...request.env }),
    cwd: request.cwd ?? '/workspace',
    tty: true,
  });
  return spawnPty(prepared, request.cols, request.rows, live.driver.needsRawHostTerminal);
}
