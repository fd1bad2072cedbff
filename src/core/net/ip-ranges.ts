// Which IP addresses an outbound request from Paddock must not reach by default: everything that is not
// a public unicast address (private, loopback, link-local, carrier-grade NAT, multicast, unspecified,
// reserved, documentation) in IPv4 and IPv6, including IPv4 addresses embedded in IPv6 forms.
import net from 'node:net';

const V4_RANGES: [string, number, string][] = [
  ['0.0.0.0', 8, 'unspecified'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'carrier-grade NAT'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'IETF protocol assignment'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.88.99.0', 24, '6to4 relay anycast'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved or broadcast'],
];

const V6_RANGES: [string, number, string][] = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['64:ff9b:1::', 48, 'local-use NAT64'],
  ['100::', 64, 'discard-only'],
  ['2001::', 32, 'Teredo tunnel'],
  ['2001:db8::', 32, 'documentation'],
  ['fc00::', 7, 'unique local (private)'],
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'site-local'],
  ['ff00::', 8, 'multicast'],
];

function v4Lists(): [net.BlockList, string][] {
  return V4_RANGES.map(([address, prefix, label]) => {
    const list = new net.BlockList();
    list.addSubnet(address, prefix, 'ipv4');
    return [list, label];
  });
}

function v6Lists(): [net.BlockList, string][] {
  return V6_RANGES.map(([address, prefix, label]) => {
    const list = new net.BlockList();
    list.addSubnet(address, prefix, 'ipv6');
    return [list, label];
  });
}

const V4 = v4Lists();
const V6 = v6Lists();

/** The 16 bytes of an IPv6 address (with an optional trailing dotted quad and zone), or null. */
export function ipv6Bytes(text: string): number[] | null {
  let address = text.split('%')[0];
  const tail: number[] = [];
  const dotted = /^(.*:)(\d{1,3}(?:\.\d{1,3}){3})$/.exec(address);
  if (dotted) {
    if (!net.isIPv4(dotted[2])) return null;
    const octets = dotted[2].split('.').map(Number);
    tail.push(...octets);
    address = dotted[1].endsWith('::') ? dotted[1] : dotted[1].slice(0, -1);
  }
  const halves = address.split('::');
  if (halves.length > 2) return null;
  const parse = (part: string) => (part === '' ? [] : part.split(':'));
  const head = parse(halves[0]);
  const rest = halves.length === 2 ? parse(halves[1]) : [];
  const groupsWanted = 8 - tail.length / 2;
  const missing = groupsWanted - head.length - rest.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  const groups = [...head, ...Array(halves.length === 2 ? missing : 0).fill('0'), ...rest];
  const bytes: number[] = [];
  for (const group of groups) {
    if (!/^[0-9a-fA-F]{1,4}$/.test(group)) return null;
    const value = parseInt(group, 16);
    bytes.push(value >> 8, value & 255);
  }
  bytes.push(...tail);
  return bytes.length === 16 ? bytes : null;
}

function v4Reason(address: string): string | null {
  for (const [list, label] of V4) if (list.check(address, 'ipv4')) return label;
  return null;
}

/** The IPv4 address an IPv6 address carries (mapped, compatible, NAT64, 6to4), if any. */
function embeddedV4(bytes: number[]): string | null {
  const zeros = (from: number, to: number) => bytes.slice(from, to).every((b) => b === 0);
  const quad = (at: number) => bytes.slice(at, at + 4).join('.');
  if (zeros(0, 10) && bytes[10] === 0xff && bytes[11] === 0xff) return quad(12);
  if (zeros(0, 12)) return quad(12);
  if (bytes[0] === 0x00 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b && zeros(4, 12)) return quad(12);
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return quad(2);
  return null;
}

/**
 * Why `address` is not a public unicast address (`loopback`, `private`, …), or null when it is one.
 * Anything that does not parse as an IP address is refused too.
 */
export function nonPublicReason(address: string): string | null {
  const family = net.isIP(address.split('%')[0]);
  if (family === 4) return v4Reason(address);
  if (family !== 6) return 'not an IP address';
  const bytes = ipv6Bytes(address);
  if (!bytes) return 'not an IP address';
  const embedded = embeddedV4(bytes);
  // ::1 and :: are handled as IPv6 ranges, not as IPv4-compatible 0.0.0.1 / 0.0.0.0.
  const plain = address.split('%')[0];
  for (const [list, label] of V6) if (list.check(plain, 'ipv6')) return label;
  if (embedded) {
    const reason = v4Reason(embedded);
    if (reason) return `${reason} (IPv4 ${embedded} inside IPv6)`;
  }
  return null;
}
