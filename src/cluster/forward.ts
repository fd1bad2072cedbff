// Passes a request on to another node and its answer back, streaming both ways (exec streams, SSE,
// NDJSON follow, file bodies are never buffered), and pipes WebSocket upgrades. Hop-by-hop headers stay
// on their hop; the Host header travels unchanged (preview hosts and terminal URLs are read from it).
import http, { type ClientRequest, type IncomingHttpHeaders, type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from 'node:http';
import https from 'node:https';
import type { Duplex } from 'node:stream';
import type { TLSSocket } from 'node:tls';
import { refuseRequest, refuseUpgrade, unreachable } from './answers.js';
import { NODE_HEADERS } from './node-auth.js';
import type { NodeLinks } from './node-links.js';
import { closeFrame, FrameBoundary, NODE_LOST_CLOSE_CODE } from './ws-frames.js';

/** Headers of one hop only (RFC 9110 §7.6.1), left behind by every forwarder. */
export const HOP_BY_HOP: readonly string[] = ['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade'];
const agents = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };
/** A node that does not accept the connection within this is unreachable (a partitioned one never refuses it). */
export const CONNECT_TIMEOUT_MS = 5000;

/** Where a request goes and the signed node headers it carries there. */
export interface Hop {
  /** The target node's origin (`http://10.0.0.2:8080`). */
  address: string;
  signed: Record<string, string>;
  /** The address the client reached this node from. */
  clientAddress: string;
  /** The target node's id, and the links kept per node (streams to a node declared lost are cut). */
  nodeId?: string;
  links?: NodeLinks;
  connectTimeoutMs?: number;
}

/** Keeps `cut` among the hop's node links until the returned function is called. */
function holdLink(hop: Hop, cut: () => void): () => void {
  return hop.links && hop.nodeId ? hop.links.hold(hop.nodeId, cut) : () => {};
}

const ALWAYS_DROPPED: ReadonlySet<string> = new Set([...HOP_BY_HOP, ...NODE_HEADERS]);

/** Per request, only when the Connection header names more headers than those (it usually does not). */
function droppedHeaders(headers: IncomingHttpHeaders): ReadonlySet<string> {
  const named = String(headers.connection ?? '')
    .split(',')
    .map((token) => token.trim().toLowerCase())
    .filter((token) => token && !ALWAYS_DROPPED.has(token));
  return named.length ? new Set([...ALWAYS_DROPPED, ...named]) : ALWAYS_DROPPED;
}

function outgoingHeaders(request: IncomingMessage, hop: Hop, upgrade: boolean): OutgoingHttpHeaders {
  const incoming = request.headers;
  const dropped = droppedHeaders(incoming);
  const headers: OutgoingHttpHeaders = {};
  for (const name in incoming) if (incoming[name] !== undefined && !dropped.has(name)) headers[name] = incoming[name];
  const prior = incoming['x-forwarded-for'];
  headers['x-forwarded-for'] = prior ? `${String(prior)}, ${hop.clientAddress}` : hop.clientAddress;
  if (!headers['x-forwarded-proto'] && (request.socket as TLSSocket).encrypted) headers['x-forwarded-proto'] = 'https';
  if (upgrade) {
    headers.connection = 'Upgrade';
    headers.upgrade = incoming.upgrade;
  }
  return Object.assign(headers, hop.signed);
}

export interface Target {
  protocol: string;
  hostname: string;
  port: string | number;
}

/** Node addresses parsed once each (a cluster has few nodes; an address that changes is a new entry). */
const targets = new Map<string, Target>();

export function targetOf(address: string): Target {
  let target = targets.get(address);
  if (!target) {
    const url = new URL(address);
    const secure = url.protocol === 'https:';
    target = { protocol: url.protocol, hostname: url.hostname.replace(/^\[|\]$/g, ''), port: url.port || (secure ? 443 : 80) };
    if (targets.size >= 1000) targets.clear();
    targets.set(address, target);
  }
  return target;
}

/** The answer's headers as a flat [name, value, …] list (repeated headers such as Set-Cookie kept apart), hop-by-hop ones left out. */
function answerHeaders(answer: IncomingMessage, keep: (name: string) => boolean): string[] {
  const dropped = droppedHeaders(answer.headers);
  const flat: string[] = [];
  for (let i = 0; i < answer.rawHeaders.length; i += 2) {
    const name = answer.rawHeaders[i];
    if (keep(name.toLowerCase()) || !dropped.has(name.toLowerCase())) flat.push(name, answer.rawHeaders[i + 1]);
  }
  return flat;
}

/** Opens the request to the target; `body` sends a buffered body instead of piping the client's. */
export function openUpstream(request: IncomingMessage, hop: Hop, options: { upgrade?: boolean; body?: Buffer } = {}): ClientRequest {
  const { protocol, hostname, port } = targetOf(hop.address);
  const secure = protocol === 'https:';
  const headers = outgoingHeaders(request, hop, options.upgrade === true);
  if (options.body) {
    delete headers['content-length'];
    headers['content-length'] = String(options.body.length);
  }
  const upstream = (secure ? https : http).request({
    protocol,
    hostname,
    port,
    method: request.method,
    path: request.url,
    headers,
    // An upgraded connection leaves the pool for good.
    agent: options.upgrade ? false : secure ? agents.https : agents.http,
  });
  upstream.on('socket', (socket) => {
    if (!socket.connecting) return;
    const timer = setTimeout(() => upstream.destroy(Object.assign(new Error('connect timed out'), { code: 'ETIMEDOUT' })), hop.connectTimeoutMs ?? CONNECT_TIMEOUT_MS);
    socket.once('connect', () => clearTimeout(timer));
    socket.once('close', () => clearTimeout(timer));
  });
  return upstream;
}

/** Relays an answer the target already gave (its body may still be streaming). */
export function relayAnswer(answer: IncomingMessage, response: ServerResponse, bodyRead?: Buffer): void {
  response.writeHead(
    answer.statusCode ?? 502,
    answer.statusMessage,
    answerHeaders(answer, () => false),
  );
  if (bodyRead) {
    response.end(bodyRead);
    return;
  }
  // Server-sent events and NDJSON follow: the client sees the head before the first event. An answer of
  // known length (a buffered exec) leaves with its body in one write, not two.
  if (answer.headers['content-length'] === undefined) response.flushHeaders();
  answer.pipe(response);
  answer.on('close', () => {
    if (!answer.complete) response.destroy();
  });
}

/** Forwards the request and streams the answer back; 502 node_unreachable when no answer comes. */
export function forwardRequest(request: IncomingMessage, response: ServerResponse, hop: Hop): void {
  const upstream = openUpstream(request, hop);
  let answered = false;
  const release = holdLink(hop, () => upstream.destroy());
  upstream.on('close', release);
  upstream.on('response', (answer) => {
    answered = true;
    relayAnswer(answer, response);
  });
  upstream.on('error', (error) => {
    if (answered) response.destroy();
    else refuseRequest(request, response, unreachable((error as NodeJS.ErrnoException).code ?? error.message));
  });
  response.on('close', () => {
    if (!response.writableFinished) upstream.destroy();
  });
  request.on('close', () => {
    if (!request.complete) upstream.destroy();
  });
  request.pipe(upstream);
}

function responseHead(answer: IncomingMessage, headers: string[]): string {
  let head = `HTTP/1.1 ${answer.statusCode} ${answer.statusMessage ?? ''}\r\n`;
  for (let i = 0; i < headers.length; i += 2) head += `${headers[i]}: ${headers[i + 1]}\r\n`;
  return `${head}\r\n`;
}

/**
 * Forwards a WebSocket upgrade. On the target's 101 both sockets are piped; any other answer is relayed
 * and the connection closed. When the target goes away without closing the WebSocket itself, the client
 * gets a close frame 4003 `node_lost` (when it can be added between frames; else the socket just closes).
 */
export function forwardUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer, hop: Hop): void {
  const upstream = openUpstream(request, hop, { upgrade: true });
  let answered = false;
  socket.on('error', () => upstream.destroy());
  upstream.on('upgrade', (answer, upstreamSocket: Duplex, upstreamHead: Buffer) => {
    answered = true;
    if (socket.destroyed) return void upstreamSocket.destroy();
    const frames = new FrameBoundary();
    socket.write(
      responseHead(
        answer,
        answerHeaders(answer, (name) => name === 'connection' || name === 'upgrade'),
      ),
    );
    if (upstreamHead.length) {
      frames.push(upstreamHead);
      socket.write(upstreamHead);
    }
    if (head.length) upstreamSocket.write(head);
    upstreamSocket.once(
      'close',
      holdLink(hop, () => upstreamSocket.destroy()),
    );
    upstreamSocket.on('data', (chunk: Buffer) => frames.push(chunk));
    upstreamSocket.pipe(socket, { end: false });
    socket.pipe(upstreamSocket);
    let ended = false;
    const targetGone = () => {
      if (ended) return;
      ended = true;
      if (socket.destroyed) return;
      if (!frames.closeSent && frames.atBoundary) socket.end(closeFrame(NODE_LOST_CLOSE_CODE, 'node_lost'));
      else if (frames.closeSent) socket.end();
      else socket.destroy();
    };
    upstreamSocket.on('end', targetGone);
    upstreamSocket.on('close', targetGone);
    upstreamSocket.on('error', targetGone);
    socket.on('close', () => upstreamSocket.destroy());
  });
  upstream.on('response', (answer) => {
    answered = true;
    const headers = answerHeaders(answer, () => false).filter((_, i, all) => i % 2 === 1 || all[i].toLowerCase() !== 'connection');
    socket.write(responseHead(answer, [...headers, 'Connection', 'close']));
    answer.pipe(socket);
    answer.on('close', () => socket.end());
  });
  upstream.on('error', (error) => {
    if (answered) socket.destroy();
    else refuseUpgrade(request, socket, unreachable((error as NodeJS.ErrnoException).code ?? error.message));
  });
  upstream.end();
}
