// A sandbox's Ethernet address, derived from its IPv4 address so the host can pin it without reading it
// back: the bridge forwards to it by a static entry and drops frames from its port carrying any other.
export function sandboxMac(ip: string): string {
  const octets = ip.split('.').map((part) => Number(part).toString(16).padStart(2, '0'));
  // 0x02: a locally administered unicast address, never a vendor's.
  return ['02', '5a', ...octets].join(':');
}
