// Calls a node makes to another on its own behalf (not a client's request passed on, which
// src/cluster/node-auth.ts signs): the caller signs the method, the path with its query and the time
// with a key derived from the cluster secret, and the callee's route serves only a call that verifies.
// A client cannot make one: it never holds the secret, and a request forwarded for a client carries
// the forwarding signature, not this one. The body is not signed (it may be gigabytes, streamed); node
// traffic belongs on a private network or behind TLS (docs/scale-out.md).
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

export const NODE_CALL_HEADER = 'x-paddock-node-call';
export const NODE_CALL_TIME_HEADER = 'x-paddock-node-call-time';
const MAX_AGE_MS = 30_000;

function mac(secret: Buffer, method: string, path: string, timeMs: number): Buffer {
  const key = createHmac('sha256', secret).update('paddock node call').digest();
  return createHmac('sha256', key)
    .update([method.toUpperCase(), path, String(timeMs)].join('\n'))
    .digest();
}

export function signNodeCall(secret: Buffer, method: string, path: string, nowMs = Date.now()): Record<string, string> {
  return { [NODE_CALL_HEADER]: mac(secret, method, path, nowMs).toString('hex'), [NODE_CALL_TIME_HEADER]: String(nowMs) };
}

/** Whether the request is a call another node of this cluster signed in the last 30 s (never on a lone node). */
export function isNodeCall(secret: Buffer | null, method: string, path: string, headers: IncomingHttpHeaders, nowMs = Date.now()): boolean {
  const given = headers[NODE_CALL_HEADER];
  const time = headers[NODE_CALL_TIME_HEADER];
  if (!secret || typeof given !== 'string' || typeof time !== 'string' || !/^\d{1,15}$/.test(time) || !/^[0-9a-f]{64}$/.test(given)) return false;
  const timeMs = Number(time);
  if (Math.abs(nowMs - timeMs) > MAX_AGE_MS) return false;
  return timingSafeEqual(Buffer.from(given, 'hex'), mac(secret, method, path, timeMs));
}
