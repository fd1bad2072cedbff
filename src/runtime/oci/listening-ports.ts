// Listening TCP sockets of a sandbox, read from /proc/<pid>/net/tcp{,6} of a host process in its network namespace.
// Those files cost milliseconds each whatever the namespace holds (the kernel walks the host's whole TCP
// table), so a reader re-reads them only when the namespace's TCP socket count (sockstat, which is cheap)
// changes, and at least every `fullReadIntervalMs` (a minute) as a safety net.
import { readFile } from 'node:fs/promises';
import type { ListeningPort } from '../runtime.js';

const tcpListenState = '0A';

export function parseProcNetTcp(text: string, ipv6: boolean): ListeningPort[] {
  const ports: ListeningPort[] = [];
  for (const line of text.split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    if (fields.length < 4 || fields[3] !== tcpListenState) continue;
    const [addressHex, portHex] = fields[1].split(':');
    ports.push({ port: parseInt(portHex, 16), address: ipv6 ? decodeIpv6(addressHex) : decodeIpv4(addressHex) });
  }
  return ports;
}

function decodeIpv4(hex: string): string {
  const bytes = Buffer.from(hex, 'hex');
  return [bytes[3], bytes[2], bytes[1], bytes[0]].join('.');
}

function decodeIpv6(hex: string): string {
  const bytes = Buffer.from(hex, 'hex');
  // /proc prints the address as four host-order (little-endian) 32-bit words.
  const groups: string[] = [];
  for (let word = 0; word < 4; word++) {
    const reordered = Buffer.from([bytes[word * 4 + 3], bytes[word * 4 + 2], bytes[word * 4 + 1], bytes[word * 4]]);
    groups.push(reordered.readUInt16BE(0).toString(16), reordered.readUInt16BE(2).toString(16));
  }
  return compressIpv6(groups);
}

function compressIpv6(groups: string[]): string {
  const text = groups.join(':');
  if (text === '0:0:0:0:0:0:0:0') return '::';
  return text.replace(/(^|:)0(:0)+(:|$)/, '::').replace(/:{3,}/, '::');
}

export async function readListeningPorts(pid: number): Promise<ListeningPort[]> {
  const [tcp, tcp6] = await Promise.all([readFile(`/proc/${pid}/net/tcp`, 'utf8').catch(() => ''), readFile(`/proc/${pid}/net/tcp6`, 'utf8').catch(() => '')]);
  const seen = new Set<string>();
  const ports: ListeningPort[] = [];
  for (const port of [...parseProcNetTcp(tcp, false), ...parseProcNetTcp(tcp6, true)]) {
    const key = `${port.address}|${port.port}`;
    if (!seen.has(key)) {
      seen.add(key);
      ports.push(port);
    }
  }
  return ports.sort((a, b) => a.port - b.port);
}

/** `TCP: inuse N` from sockstat and `TCP6: inuse N` from sockstat6: the namespace's TCP sockets in use. */
async function tcpSocketCounts(pid: number): Promise<string> {
  const [v4, v6] = await Promise.all([readFile(`/proc/${pid}/net/sockstat`, 'utf8').catch(() => ''), readFile(`/proc/${pid}/net/sockstat6`, 'utf8').catch(() => '')]);
  return `${/^TCP: inuse (\d+)/m.exec(v4)?.[1] ?? '?'}/${/^TCP6: inuse (\d+)/m.exec(v6)?.[1] ?? '?'}`;
}

interface CachedPorts {
  counts: string;
  ports: ListeningPort[];
  readAtMs: number;
}

export class ListeningPortReader {
  private readonly cache = new Map<string, CachedPorts>();

  constructor(private readonly fullReadIntervalMs = 60_000) {}

  async read(id: string, pid: number): Promise<ListeningPort[]> {
    const counts = await tcpSocketCounts(pid);
    const cached = this.cache.get(id);
    const nowMs = Date.now();
    if (cached && cached.counts === counts && !counts.includes('?') && nowMs - cached.readAtMs < this.fullReadIntervalMs) return cached.ports;
    const ports = await readListeningPorts(pid);
    this.cache.set(id, { counts, ports, readAtMs: nowMs });
    return ports;
  }

  forget(id: string): void {
    this.cache.delete(id);
  }
}
