// Parses allowlist entries: IPv4 addresses and CIDRs are used as given; hostnames are resolved by the
// host and kept current. Wildcards are rejected: IP rules cannot follow names a sandbox resolves itself.
import { formatCidr, parseCidr } from './ipv4.js';

export class InvalidAllowlistEntry extends Error {
  constructor(
    readonly entry: string,
    readonly reason: string,
  ) {
    super(`allowlist entry ${JSON.stringify(entry)}: ${reason}`);
    this.name = 'InvalidAllowlistEntry';
  }
}

export interface ParsedAllowlist {
  /** Normalized IPv4 CIDRs (a bare address becomes /32). */
  cidrs: string[];
  /** Lowercase hostnames without a trailing dot. */
  hostnames: string[];
}

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

export function parseAllowlist(entries: string[]): ParsedAllowlist {
  const cidrs = new Set<string>();
  const hostnames = new Set<string>();
  for (const raw of entries) {
    const entry = raw.trim().toLowerCase().replace(/\.$/, '');
    if (entry === '') throw new InvalidAllowlistEntry(raw, 'is empty');
    if (entry.includes('*')) {
      throw new InvalidAllowlistEntry(raw, 'wildcards are not supported; list each hostname (for example api.example.com)');
    }
    if (/^[0-9a-f]*:[0-9a-f]*:[0-9a-f:.]*(\/\d+)?$/.test(entry)) {
      throw new InvalidAllowlistEntry(raw, 'IPv6 is not available inside sandboxes; use an IPv4 address or a hostname');
    }
    if (entry.includes(':') || (entry.includes('/') && !/^[\d.]+\/\d+$/.test(entry))) {
      throw new InvalidAllowlistEntry(raw, 'must be a hostname, an IPv4 address or an IPv4 CIDR (no scheme, port or path)');
    }
    if (/^[\d./]+$/.test(entry)) {
      const cidr = parseCidr(entry);
      if (!cidr) throw new InvalidAllowlistEntry(raw, 'is not a valid IPv4 address or CIDR');
      cidrs.add(formatCidr(cidr));
      continue;
    }
    const labels = entry.split('.');
    if (entry.length > 253 || !labels.every((label) => LABEL.test(label))) {
      throw new InvalidAllowlistEntry(raw, 'is not a valid hostname');
    }
    if (entry === 'localhost' || entry.endsWith('.localhost')) {
      throw new InvalidAllowlistEntry(raw, 'names the sandbox itself, which is always reachable on loopback');
    }
    hostnames.add(entry);
  }
  return { cidrs: [...cidrs], hostnames: [...hostnames] };
}
