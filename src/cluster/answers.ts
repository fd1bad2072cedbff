// Error answers written outside Fastify (the cluster front door runs before it), in the API's shape.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { errorBodyFor } from '../core/error-handler.js';
import type { ErrorCode } from '../core/error-codes.js';
import { rawErrorResponse } from '../core/server-refusals.js';

export interface ClusterRefusal {
  status: number;
  code: ErrorCode;
  message: string;
  headers?: Record<string, string>;
}

export function refuseRequest(request: IncomingMessage, response: ServerResponse, refusal: ClusterRefusal): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  // The body was not read: keep-alive would read it as the next request.
  response.writeHead(refusal.status, { 'Content-Type': 'application/json; charset=utf-8', ...refusal.headers, ...(request.complete ? {} : { Connection: 'close' }) });
  response.end(JSON.stringify(errorBodyFor(request.url ?? '', refusal.code, refusal.message)));
}

export function refuseUpgrade(request: IncomingMessage, socket: Duplex, refusal: ClusterRefusal): void {
  if (socket.destroyed) return;
  socket.end(rawErrorResponse({ ...refusal, target: request.url }));
}

export const unreachable = (why: string): ClusterRefusal => ({ status: 502, code: 'node_unreachable', message: `the node that serves this could not be reached: ${why}` });
