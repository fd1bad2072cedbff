import { describe, expect, it } from 'vitest';
import { parseSubscriptions, subscribesTo } from './subscriptions.js';

describe('parseSubscriptions', () => {
  it('keeps catalogue types and "*" in order, without repeats', () => {
    expect(parseSubscriptions(['sandbox.error', '*', 'sandbox.error', 'pipeline.run.failed'], 'body.events')).toEqual(['sandbox.error', '*', 'pipeline.run.failed']);
  });

  it('names the first entry that is not an event type by its index', () => {
    expect(() => parseSubscriptions(['sandbox.error', 'pipeline.run.canceled', 'x'], 'body.events')).toThrow(/^body\.events\[1\] is not an event type: "pipeline\.run\.canceled"/);
    expect(() => parseSubscriptions(['webhook.test'], 'body.events')).toThrow(/body\.events\[0\]/);
  });
});

describe('subscribesTo', () => {
  it('matches listed types, and every type for "*"', () => {
    expect(subscribesTo(['sandbox.error'], 'sandbox.error')).toBe(true);
    expect(subscribesTo(['sandbox.error'], 'sandbox.destroyed')).toBe(false);
    expect(subscribesTo(['*'], 'pipeline.stage.started')).toBe(true);
  });
});
