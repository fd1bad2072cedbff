// Server-side request forgery guard for every URL Paddock calls on a user's behalf (notification
// webhooks, chat channels, sandbox callbacks). A URL is checked when it is saved (scheme, literal IP)
// and again when it is called: the host is resolved, every address must be public, and the connection
// goes to the address that was checked, so a DNS answer that changes between check and connect
// (rebinding) cannot redirect it. Operators on closed networks (and tests) can allow private targets.
import dns from 'node:dns';
import net from 'node:net';
import type { LookupFunction } from 'node:net';
import { nonPublicReason } from './ip-ranges.js';

export interface OutboundPolicy {
  /** Private, loopback, link-local … targets are allowed (PADDOCK_ALLOW_PRIVATE_WEBHOOKS). */
  allowPrivate: boolean;
  /** Plain http:// targets are allowed (PADDOCK_ALLOW_HTTP_WEBHOOKS). */
  allowHttp: boolean;
}

/** The target must not be called; retrying will not help. `message` completes "the URL …". */
export class OutboundRefused extends Error {}

const PRIVATE_HINT = 'set PADDOCK_ALLOW_PRIVATE_WEBHOOKS=true on the server to allow private targets';

/** Hostname of a URL without IPv6 brackets. */
function bareHost(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

/**
 * Parses and checks what can be checked without DNS: a URL, http(s) as the policy allows, no literal
 * non-public IP address. Throws OutboundRefused naming the problem.
 */
export function checkOutboundUrl(text: string, policy: OutboundPolicy): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new OutboundRefused('is not a valid URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new OutboundRefused('must be an https:// URL');
  if (url.protocol === 'http:' && !policy.allowHttp) throw new OutboundRefused('must be an https:// URL (set PADDOCK_ALLOW_HTTP_WEBHOOKS=true on the server to allow http)');
  if (url.username || url.password) throw new OutboundRefused('must not contain a user name or password');
  const host = bareHost(url);
  if (!host) throw new OutboundRefused('has no host');
  if (net.isIP(host) && !policy.allowPrivate) {
    const reason = nonPublicReason(host);
    if (reason) throw new OutboundRefused(`points to the non-public address ${host} (${reason}); ${PRIVATE_HINT}`);
  }
  return url;
}

/**
 * A `lookup` for http.request / net.connect that resolves the host and refuses non-public answers, so
 * the address the socket connects to is the one that was checked.
 */
export function guardedLookup(policy: OutboundPolicy): LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { all: true, family: options.family as number | undefined, hints: options.hints }, (error, addresses) => {
      if (error) return callback(error, '', 4);
      if (!addresses.length) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '', 4);
      if (!policy.allowPrivate) {
        for (const { address } of addresses) {
          const reason = nonPublicReason(address);
          if (reason) return callback(new OutboundRefused(`has host ${hostname}, which resolves to the non-public address ${address} (${reason}); ${PRIVATE_HINT}`), '', 4);
        }
      }
      if (options.all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, addresses);
      callback(null, addresses[0].address, addresses[0].family);
    });
  };
}
