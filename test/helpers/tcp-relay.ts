// A TCP relay in the test process: real connections to a real server (PostgreSQL, another node) that a
// test can cut like a partition does — nothing refused, nothing reset, bytes simply stop arriving — and
// heal again, when the held bytes flow on.
import net, { type AddressInfo, type Socket } from 'node:net';

export interface TcpRelay {
  port: number;
  /** Bytes stop flowing both ways on every connection, and new connections are accepted but not joined. */
  cut(): void;
  heal(): void;
  close(): Promise<void>;
}

export async function startTcpRelay(target: { host: string; port: number }, listen: { host: string; port?: number } = { host: '127.0.0.1' }): Promise<TcpRelay> {
  let open = true;
  const pairs = new Set<[Socket, Socket]>();
  const waiting = new Set<Socket>();
  const join = (client: Socket) => {
    const server = net.connect(target.port, target.host);
    const pair: [Socket, Socket] = [client, server];
    pairs.add(pair);
    client.pipe(server);
    server.pipe(client);
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      server.destroy();
    };
    client.on('error', end).on('close', end);
    server.on('error', end).on('close', end);
  };
  const relay = net.createServer((client) => {
    if (open) return join(client);
    waiting.add(client);
    client.pause();
    client.on('error', () => waiting.delete(client)).on('close', () => waiting.delete(client));
  });
  await new Promise<void>((resolve) => relay.listen(listen.port ?? 0, listen.host, resolve));
  return {
    port: (relay.address() as AddressInfo).port,
    cut() {
      open = false;
      for (const [client, server] of pairs) {
        client.unpipe(server).pause();
        server.unpipe(client).pause();
      }
    },
    heal() {
      open = true;
      for (const [client, server] of pairs) {
        client.pipe(server);
        server.pipe(client);
      }
      for (const client of waiting) {
        waiting.delete(client);
        join(client);
        client.resume();
      }
    },
    async close() {
      for (const [client, server] of pairs) (client.destroy(), server.destroy());
      for (const client of waiting) client.destroy();
      await new Promise<void>((resolve) => relay.close(() => resolve()));
    },
  };
}
