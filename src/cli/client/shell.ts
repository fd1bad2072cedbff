// `paddock sandbox shell ID`: the sandbox's terminal on this one. Keystrokes go raw to the sandbox, window
// size changes follow (stdout's resize event, which Node raises on SIGWINCH), the local terminal is restored
// however the session ends, and the CLI exits with the shell's exit code.
import WebSocket from 'ws';
import { PaddockError, type Paddock, type WebSocketConstructor } from '@paddock/sdk';
import { parse, positionals } from './args.js';

const CLOSE_CODES: Record<number, string> = { 4000: 'sandbox_destroyed', 4001: 'attached_elsewhere', 4002: 'sandbox_paused', 4004: 'session_gone', 4008: 'client_too_slow' };

export async function shell(paddock: Paddock, args: string[]): Promise<number> {
  const { positionals: rest } = parse('sandbox shell', args, {});
  const [id] = positionals('sandbox shell', rest, ['ID']);
  const size = () => ({ cols: process.stdout.columns || 80, rows: process.stdout.rows || 24 });
  const sandbox = await paddock.sandboxes.connect(id);
  const terminal = await sandbox.terminal.open({
    ...size(),
    onData: (data) => process.stdout.write(data),
    // Node 20 has no global WebSocket; the `ws` package speaks the same interface.
    WebSocket: (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket ?? (WebSocket as unknown as WebSocketConstructor),
  });

  const stdin = process.stdin;
  const wasRaw = stdin.isTTY ? stdin.isRaw : false;
  const onInput = (data: Buffer) => terminal.write(new Uint8Array(data));
  const onResize = () => {
    const { cols, rows } = size();
    terminal.resize(cols, rows);
  };
  const restore = () => {
    if (stdin.isTTY) stdin.setRawMode(wasRaw);
  };
  process.once('exit', restore);
  if (stdin.isTTY) stdin.setRawMode(true);
  stdin.on('data', onInput);
  stdin.resume();
  process.stdout.on('resize', onResize);
  try {
    const exit = await terminal.exited;
    if (exit.code !== null) return exit.code;
    throw new PaddockError({ status: 0, code: CLOSE_CODES[exit.closeCode] ?? 'terminal_closed', message: `the terminal closed before the shell exited (WebSocket code ${exit.closeCode})` });
  } finally {
    stdin.off('data', onInput);
    process.stdout.off('resize', onResize);
    restore();
    stdin.pause();
  }
}
