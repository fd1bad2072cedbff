// Placing a create on a worker: among the candidates the registry names (alive, active, with room, the
// runtime and template wanted), the better of two picked at random by free capacity, this node first on
// an `all` node with room. The create is forwarded signed as placed (this node's own turn is served
// here, without a hop over HTTP); a worker whose admission finds it full answers 503 node_full and the
// next candidate is tried; none left is 503 cluster_full with Retry-After, never a wait.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NodeDirectory, NodeView } from '../nodes/contract.js';
import { refuseRequest, unreachable } from './answers.js';
import { openUpstream, relayAnswer, type Hop } from './forward.js';

const K = 2;
/** Errors that say the create never reached the node: trying another is safe. */
const NEVER_SENT = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ENOTFOUND']);

const free = (node: NodeView) => node.capacity.max_sandboxes - node.sandboxes;

/** The order to try the candidates in: best of K random by free capacity, repeated; `first` leads when it is one. */
export function placementOrder(candidates: readonly NodeView[], first: string | null, random: () => number = Math.random): NodeView[] {
  const left = [...candidates];
  const order: NodeView[] = [];
  const preferred = left.findIndex((node) => node.id === first);
  if (preferred >= 0) order.push(...left.splice(preferred, 1));
  while (left.length) {
    const picks = new Set<number>();
    while (picks.size < Math.min(K, left.length)) picks.add(Math.floor(random() * left.length));
    const best = [...picks].reduce((a, b) => (free(left[b]) > free(left[a]) ? b : a));
    order.push(...left.splice(best, 1));
  }
  return order;
}

/** An answer this node gave itself, whole (a create's answer is a small JSON body). */
export interface LocalAnswer {
  status: number;
  headers: Record<string, string | string[]>;
  body: Buffer;
}

export interface PlacementDeps {
  nodes: NodeDirectory;
  /** The hop to a node, signed as placed. */
  hopTo: (request: IncomingMessage, node: NodeView) => Hop;
  /** This node is a candidate itself (role `all`). */
  preferSelf: boolean;
  /** Serves the create on this node (its turn in the order): the local routes, with the body already read. */
  serveHere: (request: IncomingMessage, body: Buffer) => Promise<LocalAnswer>;
  bodyLimitBytes: number;
  retryAfterSeconds: number;
}

type Attempt = 'full' | 'unreachable' | 'answered';

export async function placeCreate(request: IncomingMessage, response: ServerResponse, deps: PlacementDeps): Promise<void> {
  const body = await readBody(request, deps.bodyLimitBytes);
  if (!body) {
    refuseRequest(request, response, { status: 413, code: 'payload_too_large', message: `request body is too large: the limit is ${deps.bodyLimitBytes} bytes` });
    return;
  }
  const wanted = createWants(body);
  let candidates = await deps.nodes.candidates(wanted);
  // No node has built the template: one with room answers why (400 naming the template), not a 503.
  if (!candidates.length && wanted.template !== null) candidates = await deps.nodes.candidates({ runtime: wanted.runtime, template: null });
  for (const node of placementOrder(candidates, deps.preferSelf ? deps.nodes.selfId : null)) {
    const outcome = node.id === deps.nodes.selfId ? await attemptHere(request, response, deps, body) : await attempt(request, response, deps.hopTo(request, node), body);
    if (outcome === 'answered') return;
  }
  refuseRequest(request, response, {
    status: 503,
    code: 'cluster_full',
    message: `no worker has room for another sandbox${wanted.template ? ` of ${wanted.template}` : ''}: retry in ${deps.retryAfterSeconds} s, or destroy a sandbox`,
    headers: { 'Retry-After': String(deps.retryAfterSeconds) },
  });
}

async function attemptHere(request: IncomingMessage, response: ServerResponse, deps: PlacementDeps, body: Buffer): Promise<Attempt> {
  const answer = await deps.serveHere(request, body);
  if (answer.status === 503 && codeOf(answer.body) === 'node_full') return 'full';
  if (response.headersSent) response.destroy();
  else response.writeHead(answer.status, answer.headers).end(answer.body);
  return 'answered';
}

function attempt(request: IncomingMessage, response: ServerResponse, hop: Hop, body: Buffer): Promise<Attempt> {
  return new Promise((resolve) => {
    const upstream = openUpstream(request, hop, { body });
    upstream.on('response', (answer) => {
      if (answer.statusCode !== 503) {
        relayAnswer(answer, response);
        return resolve('answered');
      }
      const chunks: Buffer[] = [];
      answer.on('data', (chunk: Buffer) => chunks.push(chunk));
      answer.on('end', () => {
        const text = Buffer.concat(chunks);
        if (codeOf(text) === 'node_full') return resolve('full');
        relayAnswer(answer, response, text);
        resolve('answered');
      });
      answer.on('error', () => resolve('unreachable'));
    });
    upstream.on('error', (error: NodeJS.ErrnoException) => {
      if (NEVER_SENT.has(error.code ?? '')) return resolve('unreachable');
      refuseRequest(request, response, unreachable(error.code ?? error.message));
      resolve('answered');
    });
    upstream.end(body);
  });
}

/** The body, or null when it is over the limit. */
function readBody(request: IncomingMessage, limit: number): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        request.pause();
        return resolve(null);
      }
      chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

/** The runtime and template a create names; a body that does not parse names neither (the worker answers the 400). */
function createWants(body: Buffer): { runtime: string | null; template: string | null } {
  try {
    const parsed = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
    return { runtime: typeof parsed.runtime === 'string' ? parsed.runtime : null, template: typeof parsed.template === 'string' ? parsed.template : null };
  } catch {
    return { runtime: null, template: null };
  }
}

function codeOf(body: Buffer): string | null {
  try {
    const parsed = JSON.parse(body.toString('utf8')) as { code?: unknown };
    return typeof parsed.code === 'string' ? parsed.code : null;
  } catch {
    return null;
  }
}
