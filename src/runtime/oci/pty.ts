// Interactive terminals: node-pty runs the runtime's exec with a TTY (the PTY is the host side of it).
import * as nodePty from 'node-pty';
import type { PtyProcess } from '../runtime.js';
import type { PreparedExec } from './driver.js';

export function spawnPty(prepared: PreparedExec, cols: number, rows: number): PtyProcess {
  const terminal = nodePty.spawn(prepared.file, prepared.args, { name: 'xterm-256color', cols, rows, encoding: null });
  const dataListeners: ((data: Buffer) => void)[] = [];
  terminal.onData((data: string | Buffer) => {
    const chunk = typeof data === 'string' ? Buffer.from(data) : Buffer.from(data);
    for (const listener of dataListeners) listener(chunk);
  });
  let exited = false;
  terminal.onExit(() => {
    exited = true;
    void prepared.cleanup();
  });
  return {
    write: (data) => terminal.write(typeof data === 'string' ? data : data.toString('binary')),
    resize: (newCols, newRows) => {
      if (!exited) terminal.resize(newCols, newRows);
    },
    onData: (listener) => void dataListeners.push(listener),
    onExit: (listener) => void terminal.onExit(({ exitCode }) => listener(exitCode)),
    kill: () => {
      if (exited) return;
      void prepared.killTree(fakeChild(terminal.pid)).finally(() => {
        try {
          terminal.kill('SIGKILL');
        } catch {
          // already gone
        }
      });
    },
  };
}

function fakeChild(pid: number): import('node:child_process').ChildProcess {
  return { pid } as import('node:child_process').ChildProcess;
}
