// IPv4 address and CIDR arithmetic for the sandbox subnet and allowlist entries.

export interface Cidr {
  /** Network address as an unsigned 32-bit integer (host bits cleared). */
  network: number;
  prefixLength: number;
}

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

export function parseIpv4(text: string): number | null {
  const match = IPV4.exec(text);
  if (!match) return null;
  const octets = match.slice(1).map(Number);
  if (octets.some((octet, index) => octet > 255 || (match[index + 1].length > 1 && match[index + 1].startsWith('0')))) {
    return null;
  }
  return ((octets[0] << 24) | (octets[1] << 16) | (octets[2] << 8) | octets[3]) >>> 0;
}

export function formatIpv4(value: number): string {
  return [value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255].join('.');
}

function maskOf(prefixLength: number): number {
  return prefixLength === 0 ? 0 : (0xffffffff << (32 - prefixLength)) >>> 0;
}

/** Parses `a.b.c.d/n` (a bare address is a /32) and clears host bits. */
export function parseCidr(text: string): Cidr | null {
  const [address, prefix, extra] = text.split('/');
  if (extra !== undefined) return null;
  const value = parseIpv4(address);
  if (value === null) return null;
  if (prefix !== undefined && !/^\d{1,2}$/.test(prefix)) return null;
  const prefixLength = prefix === undefined ? 32 : Number(prefix);
  if (prefixLength > 32) return null;
  return { network: (value & maskOf(prefixLength)) >>> 0, prefixLength };
}

export function formatCidr(cidr: Cidr): string {
  return `${formatIpv4(cidr.network)}/${cidr.prefixLength}`;
}

export function broadcastOf(cidr: Cidr): number {
  return (cidr.network | ~maskOf(cidr.prefixLength)) >>> 0;
}

export function cidrContains(cidr: Cidr, address: number): boolean {
  return (address & maskOf(cidr.prefixLength)) >>> 0 === cidr.network;
}
