// Runs one command over an agent connection: output caps, streaming, stdin, timeout and abort.
import type net from 'node:net';
import type { ExecRequest, ExecResult } from '../runtime.js';
import { CappedBuffer } from '../oci/capped-buffer.js';
import { timedOutExitCode } from '../oci/exec-process.js';
import { AgentProtocolError, decodeExitStatus, encodeCommand, encodeFrame, FrameReader, FrameType, type AgentCommand, type Frame } from './protocol.js';

/** After a kill, how long the agent gets to report the exit before the connection is dropped. */
const killGraceMs = 5000;

/** The connection ended before the agent reported an exit status: the sandbox (or its agent) is gone. */
export class AgentConnectionLost extends Error {}

export function runOverAgent(socket: net.Socket, command: AgentCommand, request: ExecRequest): Promise<ExecResult> {
  const started = performance.now();
  const stdout = new CappedBuffer(request.maxOutputBytes);
  const stderr = new CappedBuffer(request.maxOutputBytes);
  const reader = new FrameReader();
  let timedOut = false;
  let exitCode: number | null = null;
  let protocolError: AgentProtocolError | null = null;
  let graceTimer: NodeJS.Timeout | undefined;

  const kill = (): void => {
    if (socket.destroyed || graceTimer) return;
    socket.write(encodeFrame(FrameType.kill));
    graceTimer = setTimeout(() => socket.destroy(), killGraceMs);
  };
  const timer = setTimeout(() => {
    timedOut = true;
    kill();
  }, request.timeoutMs);
  request.signal?.addEventListener('abort', kill, { once: true });

  return new Promise<ExecResult>((resolve, reject) => {
    const onFrame = (frame: Frame): void => {
      if (frame.type === FrameType.stdout) {
        stdout.push(frame.data);
        request.onStdout?.(frame.data);
      } else if (frame.type === FrameType.stderr) {
        stderr.push(frame.data);
        request.onStderr?.(frame.data);
      } else if (frame.type === FrameType.exit) {
        exitCode = decodeExitStatus(frame.data);
      } else if (frame.type === FrameType.notStarted) {
        // The command could not start (bad cwd, …): a failed command, as `runc exec` reports it.
        const message = Buffer.from(`${frame.data.toString('utf8')}\n`);
        stderr.push(message);
        request.onStderr?.(message);
        exitCode = 126;
      }
    };
    socket.on('data', (chunk: Buffer) => {
      try {
        for (const frame of reader.push(chunk)) onFrame(frame);
      } catch (error) {
        // Whatever runs in the sandbox can forge the agent's frames: the connection ends, the command with it.
        if (!(error instanceof AgentProtocolError)) throw error;
        protocolError = error;
        exitCode = null;
        socket.destroy();
        return;
      }
      if (exitCode !== null) socket.destroy();
    });
    socket.on('error', () => {});
    socket.once('close', () => {
      clearTimeout(timer);
      clearTimeout(graceTimer);
      request.signal?.removeEventListener('abort', kill);
      if (protocolError || (exitCode === null && !timedOut)) {
        reject(new AgentConnectionLost(protocolError ? `the sandbox agent broke the protocol: ${protocolError.message}` : 'the sandbox agent closed the connection before the command finished'));
        return;
      }
      resolve({
        exitCode: timedOut ? timedOutExitCode : exitCode!,
        stdout: stdout.toBuffer(),
        stderr: stderr.toBuffer(),
        truncated: stdout.truncated || stderr.truncated,
        timedOut,
        durationMs: performance.now() - started,
      });
    });
    socket.write(encodeCommand(command));
  });
}
