// A terminal whose sandbox is gone already (destroyed while the terminal closes) is still killed, and the
// runtime's failure to list the sandbox's processes is not an unhandled rejection.
import { describe, expect, it } from 'vitest';
import { spawnPty } from './pty.js';

describe('killing an interactive terminal', () => {
  it('kills its process when the runtime can no longer find the sandbox', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => void unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const pty = spawnPty(
        {
          file: '/bin/sleep',
          args: ['30'],
          killTree: () => Promise.reject(new Error('runsc ps failed (exit 128): loading sandbox: no such file or directory')),
          cleanup: async () => {},
        },
        80,
        24,
        false,
      );
      const exited = new Promise<number>((resolve) => pty.onExit(resolve));
      pty.kill();
      await exited;
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
