// The address of the client a request came from. Usually the socket's peer; for a request another node
// forwarded (signed, src/cluster/node-auth.ts) it is the address that node received it from, so per-IP
// rate limits count the real client and not the forwarding node.
import type { IncomingMessage } from 'node:http';

const forwardedFor = new WeakMap<IncomingMessage, string>();

/** Called once a forwarded request's signature is verified. */
export function rememberClientAddress(request: IncomingMessage, address: string): void {
  forwardedFor.set(request, address);
}

export function clientAddress(request: { raw: IncomingMessage; ip: string }): string {
  return forwardedFor.get(request.raw) ?? request.ip;
}
