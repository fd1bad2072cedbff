// The A2A protocol endpoint of every registered agent, `<base>/a2a/<agentId>`: its AgentCard (open for
// public agents), JSON-RPC (v1.0 methods, and v0.3 ones when A2A-Version is absent or 0.3) POSTed to
// the endpoint, and the HTTP+JSON binding below it (rest-binding.ts). Parsing, dispatch and error
// mapping are the A2A SDK's transport handlers; the work is AgentRequestHandler's, on Paddock's tasks.
// Outside /v1, so failures are answered as the binding's errors, not Paddock's error body.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { A2A_VERSION_HEADER, type AgentCard } from '@a2a-js/sdk';
import { A2AError, ContentTypeNotSupportedError, ERROR_INFO_TYPE, restStatusFor, toRestErrorBody } from '@a2a-js/sdk/errors';
import { defaultServerCallContextBuilder, JsonRpcTransportHandler, validateVersion, type ServerCallContext } from '@a2a-js/sdk/server';
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import type { Principal } from '../../core/access.js';
import { genericCodeFor } from '../../core/error-codes.js';
import { Forbidden, HttpError, NotFound } from '../../core/errors.js';
import type { AgentRecord } from '../contract.js';
import { agentCard, agentCardJson, legacyAgentCardJson } from './agent-card.js';
import { ABORT_SIGNAL_KEY, AgentRequestHandler, LAST_EVENT_ID_KEY, type ProtocolDeps } from './request-handler.js';
import { restBindingRoutes } from './rest-binding.js';
import { sendSse } from './sse.js';

export interface ProtocolRouteOptions extends ProtocolDeps {
  /** The caller of an API key or session token (the card route reads an optional one itself). */
  authenticate(credential: string): Promise<Principal | null>;
  /** The agent's A2A endpoint for a request (PADDOCK_PUBLIC_URL, else the request's own origin). */
  endpointOf(request: FastifyRequest, agentId: string): string;
}

export type Binding = 'jsonrpc' | 'rest' | 'card';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** How the protocol routes answer failures. */
    a2aBinding?: Binding;
  }
}

const key = { kind: 'key', area: 'a2a' } as const;
const LEGACY_VERSION = '0.3';
const TAGS = ['a2a-protocol'];
const PADDOCK_ERROR_DOMAIN = 'paddock';

const STATUS_NAMES: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  409: 'FAILED_PRECONDITION',
  413: 'INVALID_ARGUMENT',
  415: 'INVALID_ARGUMENT',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
};

/** A failure outside the SDK's handlers (auth, rate limit, routing, body) in the binding's shape. */
function answerFailure(error: FastifyError | HttpError | Error, request: FastifyRequest, reply: FastifyReply) {
  const binding = request.routeOptions.config?.a2aBinding ?? 'rest';
  const send = (status: number, body: unknown) =>
    reply
      .code(status)
      .type(binding === 'rest' ? 'application/a2a+json' : 'application/json')
      .send(JSON.stringify(body));
  if (error instanceof A2AError) {
    if (binding === 'jsonrpc') return send(200, { jsonrpc: '2.0', id: null, error: JsonRpcTransportHandler.mapToJSONRPCError(error) });
    const status = restStatusFor(error);
    return send(status, toRestErrorBody(error, status));
  }
  const status = (error as HttpError).statusCode ?? 500;
  if (error instanceof HttpError) for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  if (status === 401) reply.header('www-authenticate', 'Bearer realm="paddock"');
  if (status >= 500) request.log.error({ err: error }, 'unexpected failure');
  const message = status >= 500 ? 'internal server error' : error.message;
  // Paddock's error code travels as the reason of an ErrorInfo detail, as A2A's own errors carry theirs.
  const details = [{ '@type': ERROR_INFO_TYPE, reason: error instanceof HttpError ? error.code : genericCodeFor(status), domain: PADDOCK_ERROR_DOMAIN }];
  if (binding === 'jsonrpc') {
    // JSON-RPC has no code for "unauthenticated" or "rate limited": the HTTP status says it, the code is Invalid Request.
    const code = status === 415 ? -32005 : status >= 500 ? -32603 : -32600;
    return send(status, { jsonrpc: '2.0', id: null, error: { code, message, data: details } });
  }
  return send(status, { error: { code: status, status: STATUS_NAMES[status] ?? 'UNKNOWN', message, details } });
}

function bearer(request: FastifyRequest): string | null {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
  return match ? match[1] : null;
}

export function a2aProtocolRoutes(options: ProtocolRouteOptions) {
  const { agents } = options;

  /** The caller's own agent. Another account's agent is refused (403 if it is public, else 404): cross-account delegation is not offered yet. */
  async function ownAgent(principal: Principal, agentId: string): Promise<AgentRecord> {
    try {
      return await agents.get(principal.accountId, agentId);
    } catch (error) {
      if (error instanceof HttpError && error.statusCode === 404 && (await agents.findPublic(agentId))) {
        throw new Forbidden(`agent ${agentId} belongs to another account: only API keys of its own account may use its A2A endpoint (cross-account delegation is not offered yet)`);
      }
      if (error instanceof HttpError && error.statusCode === 404) throw new NotFound(`agent ${agentId}`, 'agent_not_found');
      throw error;
    }
  }

  /** The handler for this request: the caller's agent, its card, and the call context (version, abort signal, Last-Event-ID). */
  async function handlerFor(request: FastifyRequest<{ Params: { agentId: string } }>, reply: FastifyReply) {
    const principal = request.principal!;
    const agent = await ownAgent(principal, request.params.agentId);
    const card = agentCard(agent, options.endpointOf(request, agent.id));
    const handler = new AgentRequestHandler(options, principal.accountId, agent, card);
    const versionHeader = request.headers[A2A_VERSION_HEADER.toLowerCase()];
    const context: ServerCallContext = defaultServerCallContextBuilder({
      extensions: undefined,
      user: { isAuthenticated: true, userName: principal.accountId },
      headers: request.headers,
      requestedVersion: typeof versionHeader === 'string' && versionHeader ? versionHeader : undefined,
    });
    const aborted = new AbortController();
    reply.raw.on('close', () => aborted.abort());
    context.state.set(ABORT_SIGNAL_KEY, aborted.signal);
    const lastEventId = request.headers['last-event-id'];
    if (typeof lastEventId === 'string' && /^\d+$/.test(lastEventId)) context.state.set(LAST_EVENT_ID_KEY, lastEventId);
    return { handler, card, context };
  }

  return async function register(app: FastifyInstance) {
    // The SDK's handlers take the body as text (JSON-RPC answers a parse error itself); JSON and A2A's own media type.
    app.removeAllContentTypeParsers();
    app.addContentTypeParser(['application/json', 'application/a2a+json'], { parseAs: 'string' }, (_request, body, done) => done(null, body));
    app.setErrorHandler(answerFailure);

    app.get<{ Params: { agentId: string } }>('/a2a/:agentId/.well-known/agent-card.json', {
      config: { access: { kind: 'open', limit: 'discovery' }, a2aBinding: 'card' },
      schema: {
        tags: TAGS,
        summary: "An agent's A2A AgentCard",
        description:
          "The A2A AgentCard of the agent, for A2A clients. With `A2A-Version: 1.0` the v1.0 card (proto JSON: `supportedInterfaces` for JSONRPC and HTTP+JSON at protocol versions 1.0 and 0.3, all at the endpoint `<base>/a2a/<agentId>`); without it (or with 0.3) the v0.3 card (`url`, `preferredTransport`, `additionalInterfaces`), carrying the v1.0 `supportedInterfaces` too. Capabilities: streaming and push notifications. Security: an HTTP bearer scheme, a full-scope Paddock API key of the agent's account. Open for public, enabled agents (100/min per IP); a private or disabled agent's card needs a key of its account, else 404.",
      },
      handler: async (request, reply) => {
        const credential = bearer(request);
        const principal = credential ? await options.authenticate(credential) : null;
        let agent = principal ? await agents.get(principal.accountId, request.params.agentId).catch(() => null) : null;
        agent ??= await agents.findPublic(request.params.agentId);
        if (!agent) throw new NotFound(`agent ${request.params.agentId}`, 'agent_not_found');
        const card = agentCard(agent, options.endpointOf(request, agent.id));
        const version = request.headers[A2A_VERSION_HEADER.toLowerCase()];
        reply.header('vary', `${A2A_VERSION_HEADER}, Authorization`);
        return !version || version === LEGACY_VERSION ? legacyAgentCardJson(card) : agentCardJson(card);
      },
    });

    app.post<{ Params: { agentId: string }; Body: string | undefined }>('/a2a/:agentId', {
      config: { access: key, a2aBinding: 'jsonrpc' },
      schema: {
        tags: TAGS,
        summary: "An agent's A2A JSON-RPC endpoint",
        description:
          'A2A over JSON-RPC 2.0, with a full-scope API key of the agent\'s account (`Authorization: Bearer`; 401 without or with an invalid key, 403 for another account\'s agent: cross-account delegation is not offered yet). With `A2A-Version: 1.0`: `SendMessage`, `SendStreamingMessage`, `GetTask`, `ListTasks`, `CancelTask`, `SubscribeToTask`, `CreateTaskPushNotificationConfig`, `GetTaskPushNotificationConfig`, `ListTaskPushNotificationConfigs`, `DeleteTaskPushNotificationConfig`; without the header (or 0.3): `message/send`, `message/stream`, `tasks/get`, `tasks/cancel`, `tasks/resubscribe`, `tasks/pushNotificationConfig/{set,get,list,delete}`. Streaming methods answer server-sent events. See README "Agent delegation" for how tasks map to A2A.',
      },
      handler: async (request, reply) => {
        const { handler, card, context } = await handlerFor(request, reply);
        const legacy = context.requestedVersion === LEGACY_VERSION;
        const mapError = legacy ? LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError : JsonRpcTransportHandler.mapToJSONRPCError;
        const requestId = () => {
          try {
            return (JSON.parse(request.body ?? '') as { id?: unknown }).id ?? null;
          } catch {
            return null;
          }
        };
        try {
          if (request.body === undefined) throw new ContentTypeNotSupportedError('send the JSON-RPC request as application/json');
          validateVersion(context.requestedVersion, card as AgentCard, 'JSONRPC');
          const transport = legacy ? new LegacyJsonRpcTransportHandler(handler) : new JsonRpcTransportHandler(handler);
          const answer = await transport.handle(request.body, context);
          if (typeof (answer as AsyncGenerator)[Symbol.asyncIterator] !== 'function') return reply.code(200).send(answer);
          await sendSse(
            reply,
            answer as AsyncGenerator<unknown, void, undefined>,
            (event) => event,
            (error) => ({ jsonrpc: '2.0', id: requestId(), error: mapError(error) }),
            (error) => reply.code(200).send({ jsonrpc: '2.0', id: requestId(), error: mapError(error) }),
          );
        } catch (error) {
          if (reply.sent) return;
          if (error instanceof HttpError) throw error;
          const mapped = mapError(error);
          return reply.code(mapped.code === -32603 ? 500 : 200).send({ jsonrpc: '2.0', id: requestId(), error: mapped });
        }
      },
    });

    await app.register(restBindingRoutes({ handlerFor, tags: TAGS, access: key }));
  };
}
