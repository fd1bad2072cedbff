// Interactive terminals: node-pty runs the runtime's exec with a TTY (the PTY is the host side of it).
import * as nodePty from 'node-pty';
import type { PtyProcess } from '../runtime.js';
import type { PreparedExec } from './driver.js';

export function spawnPty(prepared: PreparedExec, cols: number, rows: number, rawFromStart: boolean): PtyProcess {
  const options = { name: 'xterm-256color', cols, rows, encoding: null };
  // Raw before the runtime starts, where the driver would otherwise leave a window in cooked mode.
  const terminal = rawFromStart ? nodePty.spawn('/bin/sh', ['-c', 'stty raw -echo && exec "$0" "$@"', prepared.file, ...prepared.args], options) : nodePty.spawn(prepared.file, prepared.args, options);
  const dataListeners: ((data: Buffer) => void)[] = [];
  // With `encoding: null` node-pty hands over raw bytes, so multi-byte characters split across reads survive.
  terminal.onData((data: string | Buffer) => {
    const chunk = Buffer.from(data);
    for (const listener of dataListeners) listener(chunk);
  });
  let exited = false;
  terminal.onExit(() => {
    exited = true;
    void prepared.cleanup();
  });
  return {
    write: (data) => terminal.write(data),
    resize: (newCols, newRows) => {
      if (!exited) terminal.resize(newCols, newRows);
    },
    onData: (listener) => void dataListeners.push(listener),
    onExit: (listener) => void terminal.onExit(({ exitCode }) => listener(exitCode)),
    kill: () => {
      if (exited) return;
      // The sandbox may be gone already (destroyed, its runtime state with it): the terminal's own process is killed all the same.
      void prepared
        .killTree(terminal.pid)
        .catch(() => {})
        .finally(() => {
          try {
            terminal.kill('SIGKILL');
          } catch {
            // already gone
          }
        });
    },
  };
}
