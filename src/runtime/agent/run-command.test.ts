// A command run over a real socket whose other end plays a forged agent: what it sends decides
// nothing beyond its own command, and a broken protocol ends the command with a clear error.
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { encodeFrame } from './protocol.js';
import { AgentConnectionLost, runOverAgent } from './run-command.js';

const servers: net.Server[] = [];
afterEach(() => servers.splice(0).forEach((server) => server.close()));

/** A connection whose far end writes `answer` once the request arrives. */
async function connectionAnswering(answer: Buffer): Promise<net.Socket> {
  const server = net.createServer((socket) => {
    socket.once('data', () => socket.write(answer));
    socket.on('error', () => {});
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  const socket = net.connect(port, '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  return socket;
}

const run = (socket: net.Socket) => runOverAgent(socket, { argv: ['true'], cwd: '/', env: [] }, { command: 'true', timeoutMs: 5000, maxOutputBytes: 1024 });

describe('running a command over the agent connection', () => {
  it('reports the exit status the agent sends', async () => {
    const socket = await connectionAnswering(Buffer.concat([encodeFrame('S', Buffer.from('7')), encodeFrame('O', Buffer.from('out')), encodeFrame('X', Buffer.from('3'))]));
    const result = await run(socket);
    expect(result.exitCode).toBe(3);
    expect(result.stdout.toString()).toBe('out');
  });

  it('fails the command when the exit status is not a number, rather than reporting NaN', async () => {
    const socket = await connectionAnswering(encodeFrame('X', Buffer.from('abc')));
    await expect(run(socket)).rejects.toThrow(AgentConnectionLost);
    const again = await connectionAnswering(encodeFrame('X', Buffer.from('abc')));
    await expect(run(again)).rejects.toThrow(/broke the protocol: agent sent an exit status/);
  });

  it('fails the command on a forged frame length instead of waiting for 4 GiB', async () => {
    const header = Buffer.from([0x4f, 0xff, 0xff, 0xff, 0xff]);
    const socket = await connectionAnswering(header);
    await expect(run(socket)).rejects.toThrow(/broke the protocol: agent sent a 4294967295-byte frame/);
  });
});
