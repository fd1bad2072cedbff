import { describe, expect, it } from 'vitest';
import { ipv6Bytes, nonPublicReason } from './ip-ranges.js';

describe('nonPublicReason', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.1.2', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['100.127.255.254', 'carrier-grade NAT'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'reserved or broadcast'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['fd00::1', 'unique local (private)'],
    ['fc12:3456::1', 'unique local (private)'],
    ['ff02::1', 'multicast'],
  ])('refuses %s as %s', (address, reason) => {
    expect(nonPublicReason(address)).toBe(reason);
  });

  it.each(['::ffff:127.0.0.1', '::ffff:7f00:1', '::127.0.0.1', '64:ff9b::a00:1', '2002:c0a8:0101::1', '::ffff:169.254.169.254'])('refuses IPv4 hidden in IPv6: %s', (address) => {
    expect(nonPublicReason(address)).toMatch(/inside IPv6/);
  });

  it.each(['8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '2002:0808:0808::1'])('allows public %s', (address) => {
    expect(nonPublicReason(address)).toBeNull();
  });

  it('refuses what is not an address', () => {
    expect(nonPublicReason('example.com')).toBe('not an IP address');
  });
});

describe('ipv6Bytes', () => {
  it('expands compressed forms and trailing dotted quads', () => {
    expect(ipv6Bytes('::1')).toEqual([...Array(15).fill(0), 1]);
    expect(ipv6Bytes('::ffff:10.0.0.1')).toEqual([...Array(10).fill(0), 255, 255, 10, 0, 0, 1]);
    expect(ipv6Bytes('2001:db8::8:800:200c:417a')).toEqual([0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 8, 8, 0, 0x20, 0x0c, 0x41, 0x7a]);
    expect(ipv6Bytes('1:2:3')).toBeNull();
  });
});
