import { describe, expect, it } from 'vitest';
import { InvalidAllowlistEntry, parseAllowlist } from '../../../src/runtime/network/index.js';

describe('parseAllowlist', () => {
  it('normalizes IPv4 addresses to /32 and CIDRs to their network', () => {
    expect(parseAllowlist(['203.0.113.7', '198.51.100.77/24']).cidrs).toEqual(['203.0.113.7/32', '198.51.100.0/24']);
  });

  it('lowercases hostnames, drops a trailing dot and removes duplicates', () => {
    expect(parseAllowlist(['API.Example.com.', 'api.example.com']).hostnames).toEqual(['api.example.com']);
  });

  it.each([
    ['*.example.com', /wildcards are not supported/],
    ['https://example.com', /no scheme, port or path/],
    ['example.com:443', /no scheme, port or path/],
    ['example.com/path', /no scheme, port or path/],
    ['2001:db8::1', /IPv6 is not available/],
    ['300.1.1.1', /not a valid IPv4/],
    ['10.0.0.0/33', /not a valid IPv4/],
    ['exa mple.com', /not a valid hostname/],
    ['-bad.example.com', /not a valid hostname/],
    ['localhost', /always reachable on loopback/],
    ['  ', /is empty/],
  ])('rejects %j', (entry, reason) => {
    expect(() => parseAllowlist([entry])).toThrow(InvalidAllowlistEntry);
    expect(() => parseAllowlist([entry])).toThrow(reason);
  });
});
