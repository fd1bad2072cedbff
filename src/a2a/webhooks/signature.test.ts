import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { generateTaskWebhookSecret, taskWebhookBody, verifyTaskWebhook, type WebhookTask } from './signature.js';

const task: WebhookTask = { id: 'tsk_1', agent_id: 'agt_1', status: 'completed', status_message: null, output: { answer: 'é "quoted" 1.5e-7', n: [1, 2.25] } };

describe('task webhook signature', () => {
  it('signs "<timestamp>.<event>.<task JSON as sent>" with the secret, hex, as the body says', () => {
    const { body, signature } = taskWebhookBody('my-secret-0123456789', 'task.completed', '2026-01-02T03:04:05.678Z', task);
    const taskJson = body.slice(body.indexOf('"task":') + 7, body.lastIndexOf(',"signature":'));
    const hex = createHmac('sha256', 'my-secret-0123456789').update(`2026-01-02T03:04:05.678Z.task.completed.${taskJson}`).digest('hex');
    expect(signature).toBe(`sha256=${hex}`);
    expect(JSON.parse(body)).toEqual({ event: 'task.completed', timestamp: '2026-01-02T03:04:05.678Z', task, signature });
    expect(Object.keys(JSON.parse(body))).toEqual(['event', 'timestamp', 'task', 'signature']);
  });

  it('verifies from the raw body, and refuses another secret or a changed body', () => {
    const secret = generateTaskWebhookSecret();
    const { body, signature } = taskWebhookBody(secret, 'task.failed', '2026-01-02T03:04:05.678Z', task);
    expect(verifyTaskWebhook(secret, body, signature)).toBe(true);
    expect(verifyTaskWebhook(generateTaskWebhookSecret(), body, signature)).toBe(false);
    expect(verifyTaskWebhook(secret, body.replace('task.failed', 'task.completed'), signature)).toBe(false);
    expect(verifyTaskWebhook(secret, body.replace('"completed"', '"failed"'), signature)).toBe(false);
    expect(verifyTaskWebhook(secret, 'not json', signature)).toBe(false);
  });
});
