// Helpers shared by the agent-delegation tests, over plain HTTP (a base URL and an API key), so tests
// of any part can register agents however they started the server.
import { createHmac } from 'node:crypto';
import { expect } from 'vitest';
import type { ReceivedRequest } from './receivers.js';

async function post(baseUrl: string, apiKey: string, path: string, body: unknown) {
  const response = await fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  expect(response.status, text).toBe(201);
  return JSON.parse(text);
}

const uniqueName = (prefix: string) => `${prefix}-${Math.random().toString(36).slice(2, 10)}`;

/** A pipeline of the key's account; by default one gate stage that passes at once. */
export async function createPipeline(baseUrl: string, apiKey: string, body: Record<string, unknown> = {}) {
  return post(baseUrl, apiKey, '/v1/pipelines', { name: uniqueName('agent-pipeline'), stages: [{ name: 'pass', type: 'gate', config: { expression: 'true' } }], ...body });
}

/** The default skill: `input` must be an object with a string `query`. */
export const ECHO_SKILL = {
  id: 'echo',
  name: 'Echo',
  description: 'Answers its query.',
  tags: ['test'],
  input_schema: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
};

/**
 * Registers an agent (201 expected) and answers the registration. Without `overrides.pipeline_id` a
 * new pipeline is created for it (see createPipeline); every other field can be overridden.
 */
export async function registerAgent(baseUrl: string, apiKey: string, overrides: Record<string, unknown> = {}) {
  const pipelineId = overrides.pipeline_id ?? (await createPipeline(baseUrl, apiKey)).id;
  return post(baseUrl, apiKey, '/v1/a2a/agents', { name: uniqueName('agent'), description: 'A test agent.', skills: [ECHO_SKILL], ...overrides, pipeline_id: pipelineId });
}

/** A task webhook push as the README tells a receiver to check it, computed apart from the server's code. */
export function taskWebhookVerifies(secret: string, request: ReceivedRequest): boolean {
  const body = JSON.parse(request.body);
  const expected =
    'sha256=' +
    createHmac('sha256', secret)
      .update(`${body.timestamp}.${body.event}.${JSON.stringify(body.task)}`)
      .digest('hex');
  return expected === request.headers['x-paddock-signature'] && expected === body.signature;
}
