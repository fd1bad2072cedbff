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

/** What a signature covers. */
function signedText(request: NodeRequest, timeMs: number): string {
  return [request.method.toUpperCase(), request.path, request.nodeId, String(timeMs), request.clientAddress, request.placed ? '1' : '0'].join('\n');
}

export function signNodeRequest(secret: Buffer, request: NodeRequest, nowMs = Date.now()): Record<string, string> {
  return {
    [NODE_HEADER]: request.nodeId,
    [NODE_TIME_HEADER]: String(nowMs),
    [NODE_SIGNATURE_HEADER]: createHmac('sha256', secret).update(signedText(request, nowMs)).digest('hex'),
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

/**
 * Whether the request is a node's, a forgery or stale, or carries no node headers at all. `verified`
 * remembers the signatures checked already: one seen again over the same text costs no second HMAC.
 */
export function verifyNodeRequest(secret: Buffer, method: string, path: string, headers: IncomingHttpHeaders, nowMs = Date.now(), verified?: VerifiedSignatures): Verification {
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
  if (!matches(secret, request, timeMs, given, verified)) return { kind: 'invalid', reason: 'the node signature does not match' };
  return { kind: 'valid', request };
}

function matches(secret: Buffer, request: NodeRequest, timeMs: number, given: string, verified: VerifiedSignatures | undefined): boolean {
  const text = signedText(request, timeMs);
  if (verified?.get(given) === text) return true;
  const expected = createHmac('sha256', secret).update(text).digest();
  const actual = /^[0-9a-f]{64}$/.test(given) ? Buffer.from(given, 'hex') : Buffer.alloc(0);
  if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) return false;
  verified?.set(given, text);
  return true;
}

/** How long the signing node uses one signature again for the same request (method, path, client). */
export const SIGNATURE_REUSE_MS = 1000;
const REMEMBERED = 1024;

/**
 * Signs the requests one node forwards. A request the same as one signed less than a second ago (a client
 * running command after command in one sandbox) gets the same headers again: it could be replayed for
 * 30 s either way, and the node receiving it finds the signature among those it has verified already.
 */
export class NodeSigner {
  private readonly recent = new Map<string, { headers: Record<string, string>; atMs: number }>();

  constructor(
    private readonly secret: Buffer,
    private readonly nodeId: string,
  ) {}

  sign(method: string, path: string, clientAddress: string, placed: boolean, nowMs = Date.now()): Record<string, string> {
    const key = `${method} ${path} ${clientAddress} ${placed ? 1 : 0}`;
    const recent = this.recent.get(key);
    if (recent && nowMs - recent.atMs < SIGNATURE_REUSE_MS && nowMs >= recent.atMs) return recent.headers;
    const headers = signNodeRequest(this.secret, { method, path, nodeId: this.nodeId, clientAddress, placed }, nowMs);
    remember(this.recent, key, { headers, atMs: nowMs });
    return headers;
  }
}

/** Signature → the text it was verified over: the same signature on the same text needs no second HMAC. */
export class VerifiedSignatures {
  private readonly texts = new Map<string, string>();

  get(signature: string): string | undefined {
    return this.texts.get(signature);
  }

  set(signature: string, text: string): void {
    remember(this.texts, signature, text);
  }
}

/** Adds to a map that keeps the latest REMEMBERED entries (the oldest one goes first). */
function remember<V>(map: Map<string, V>, key: string, value: V): void {
  map.delete(key);
  if (map.size >= REMEMBERED) map.delete(map.keys().next().value!);
  map.set(key, value);
}
