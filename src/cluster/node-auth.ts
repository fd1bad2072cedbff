// Node-to-node requests: the forwarding node signs the method, the path, its id, the time, the client's
// address and whether the request was placed, with the cluster secret (HMAC-SHA256). The receiving node
// handles a request that verifies as its own (never forwarding it again) and believes the client address
// it carries. A sandbox cannot forge these headers: it never holds the secret, which only the nodes'
// environment has. Without a secret (a lone node) the headers mean nothing and are stripped.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

export const NODE_HEADER = 'x-paddock-node';
export const NODE_TIME_HEADER = 'x-paddock-node-time';
export const NODE_SIGNATURE_HEADER = 'x-paddock-node-signature';
export const CLIENT_ADDRESS_HEADER = 'x-paddock-client-address';
export const PLACED_HEADER = 'x-paddock-placed';
export const NODE_HEADERS: readonly string[] = [NODE_HEADER, NODE_TIME_HEADER, NODE_SIGNATURE_HEADER, CLIENT_ADDRESS_HEADER, PLACED_HEADER];

/** How far a signature's time may be from the receiver's clock, either way. */
export const MAX_SIGNATURE_AGE_MS = 30_000;

export interface NodeRequest {
  method: string;
  /** The request target as sent: path and query. */
  path: string;
  nodeId: string;
  clientAddress: string;
  /** The create was placed on this node by another (it must not be placed again). */
  placed: boolean;
}

export type Verification = { kind: 'unsigned' } | { kind: 'valid'; request: NodeRequest } | { kind: 'invalid'; reason: string };

function signature(secret: Buffer, request: NodeRequest, timeMs: number): string {
  const text = [request.method.toUpperCase(), request.path, request.nodeId, String(timeMs), request.clientAddress, request.placed ? '1' : '0'].join('\n');
  return createHmac('sha256', secret).update(text).digest('hex');
}

export function signNodeRequest(secret: Buffer, request: NodeRequest, nowMs = Date.now()): Record<string, string> {
  return {
    [NODE_HEADER]: request.nodeId,
    [NODE_TIME_HEADER]: String(nowMs),
    [NODE_SIGNATURE_HEADER]: signature(secret, request, nowMs),
    [CLIENT_ADDRESS_HEADER]: request.clientAddress,
    ...(request.placed ? { [PLACED_HEADER]: '1' } : {}),
  };
}

const single = (value: string | string[] | undefined): string | null => (typeof value === 'string' ? value : null);

export function carriesNodeHeaders(headers: IncomingHttpHeaders): boolean {
  return NODE_HEADERS.some((name) => headers[name] !== undefined);
}

export function stripNodeHeaders(headers: IncomingHttpHeaders): void {
  for (const name of NODE_HEADERS) delete headers[name];
}

/** Whether the request is a node's, a forgery or stale, or carries no node headers at all. */
export function verifyNodeRequest(secret: Buffer, method: string, path: string, headers: IncomingHttpHeaders, nowMs = Date.now()): Verification {
  if (!carriesNodeHeaders(headers)) return { kind: 'unsigned' };
  const nodeId = single(headers[NODE_HEADER]);
  const time = single(headers[NODE_TIME_HEADER]);
  const given = single(headers[NODE_SIGNATURE_HEADER]);
  const clientAddress = single(headers[CLIENT_ADDRESS_HEADER]);
  const placed = headers[PLACED_HEADER];
  if (!nodeId || !time || !given || clientAddress === null || (placed !== undefined && placed !== '1')) return { kind: 'invalid', reason: 'the node headers are incomplete' };
  const timeMs = /^\d{1,15}$/.test(time) ? Number(time) : NaN;
  if (!Number.isFinite(timeMs) || Math.abs(nowMs - timeMs) > MAX_SIGNATURE_AGE_MS) return { kind: 'invalid', reason: 'the node signature is too old (or from a clock more than 30 s off)' };
  const request: NodeRequest = { method, path, nodeId, clientAddress, placed: placed === '1' };
  const expected = Buffer.from(signature(secret, request, timeMs), 'hex');
  const actual = /^[0-9a-f]{64}$/.test(given) ? Buffer.from(given, 'hex') : Buffer.alloc(0);
  if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) return { kind: 'invalid', reason: 'the node signature does not match' };
  return { kind: 'valid', request };
}
