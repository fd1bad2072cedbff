// Tells HTTP servers from other TCP servers: send one HEAD request and look at the first bytes back.
import net from 'node:net';

export type PortProtocol = 'http' | 'tcp';

export const PROBE_TIMEOUT_MS = 800;

/** `http` when the port answers `HTTP/…` to a request; `tcp` for anything else (other bytes, silence, a refusal). */
export function probeProtocol(host: string, port: number, timeoutMs = PROBE_TIMEOUT_MS): Promise<PortProtocol> {
  return new Promise((resolve) => {
    let received = Buffer.alloc(0);
    const socket = net.connect({ host, port });
    const finish = (protocol: PortProtocol) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(protocol);
    };
    const timer = setTimeout(() => finish('tcp'), timeoutMs);
    socket.on('connect', () => socket.write(`HEAD / HTTP/1.1\r\nHost: ${host}:${port}\r\nUser-Agent: paddock-port-probe\r\nConnection: close\r\n\r\n`));
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      // Enough bytes to decide, or a short answer that already is not HTTP.
      if (received.length >= 5 || !'HTTP/'.startsWith(received.toString('latin1'))) finish(received.subarray(0, 5).toString('latin1') === 'HTTP/' ? 'http' : 'tcp');
    });
    socket.on('end', () => finish(received.subarray(0, 5).toString('latin1') === 'HTTP/' ? 'http' : 'tcp'));
    socket.on('error', () => finish('tcp'));
  });
}
