// A2A SDK clients for a Paddock agent's endpoint, authenticated with an API key: v1.0 over JSON-RPC or
// HTTP+JSON (ClientFactory from the agent's card), and the v0.3 JSON-RPC transport.
import { randomUUID } from 'node:crypto';
import { Role, type Message, type SendMessageRequest, type StreamResponse } from '@a2a-js/sdk';
import { Client, ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory, RestTransportFactory } from '@a2a-js/sdk/client';
import { LegacyJsonRpcTransport } from '@a2a-js/sdk/compat/v0_3/client';

export function fetchWithKey(key: string | null): typeof fetch {
  return (input, init) => {
    const headers = new Headers(init?.headers);
    if (key !== null) headers.set('authorization', `Bearer ${key}`);
    return fetch(input, { ...init, headers });
  };
}

export type Binding = 'JSONRPC' | 'HTTP+JSON';

/** A v1.0 client for the agent at `endpoint`, created from its card as any A2A client would. */
export async function v1Client(endpoint: string, key: string | null, binding: Binding = 'JSONRPC'): Promise<Client> {
  const fetchImpl = fetchWithKey(key);
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [binding === 'JSONRPC' ? new JsonRpcTransportFactory({ fetchImpl }) : new RestTransportFactory({ fetchImpl })],
      preferredTransports: [binding],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
    }),
  );
  // The card is at <endpoint>/.well-known/agent-card.json (resolved relative to the URL, hence the slash).
  return factory.createFromUrl(`${endpoint}/`);
}

/** The v0.3 JSON-RPC transport (v0.3 method names on the wire). */
export function v03Transport(endpoint: string, key: string | null): LegacyJsonRpcTransport {
  return new LegacyJsonRpcTransport({ endpoint, fetchImpl: fetchWithKey(key) });
}

export function textMessage(text: string, extra: Partial<Message> = {}): Message {
  return {
    messageId: randomUUID(),
    contextId: '',
    taskId: '',
    role: Role.ROLE_USER,
    parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' }],
    metadata: {},
    extensions: [],
    referenceTaskIds: [],
    ...extra,
  };
}

export function dataMessage(data: Record<string, unknown>, extra: Partial<Message> = {}): Message {
  return textMessage('', { parts: [{ content: { $case: 'data', value: data }, metadata: undefined, filename: '', mediaType: 'application/json' }], ...extra });
}

export function sendRequest(message: Message, returnImmediately = false): SendMessageRequest {
  return { tenant: '', message, configuration: returnImmediately ? { acceptedOutputModes: [], taskPushNotificationConfig: undefined, returnImmediately: true } : undefined, metadata: {} };
}

export async function collect(stream: AsyncGenerator<StreamResponse, void, undefined>): Promise<StreamResponse[]> {
  const events: StreamResponse[] = [];
  for await (const event of stream) events.push(event);
  return events;
}
