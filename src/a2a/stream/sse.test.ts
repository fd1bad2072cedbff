import { describe, expect, it } from 'vitest';
import { resumeAfter } from './resume-point.js';
import { acceptsEventStream, eventFrame } from './sse.js';

describe('acceptsEventStream', () => {
  it('serves no Accept, text/event-stream, text/* and */*', () => {
    for (const accept of [undefined, '', 'text/event-stream', 'TEXT/EVENT-STREAM', 'application/json, text/event-stream;q=0.5', 'text/*', '*/*', 'application/json;q=0.9, */*;q=0.1'])
      expect(acceptsEventStream(accept), String(accept)).toBe(true);
  });
  it('refuses an Accept that excludes it, or gives it q=0', () => {
    for (const accept of ['application/json', 'text/html', 'text/event-stream;q=0', 'text/event-stream; q=0.0, application/json']) expect(acceptsEventStream(accept), accept).toBe(false);
  });
});

describe('resumeAfter', () => {
  it('takes the header, else the query, else 0', () => {
    expect(resumeAfter(undefined, undefined)).toBe(0);
    expect(resumeAfter('7', undefined)).toBe(7);
    expect(resumeAfter(undefined, '3')).toBe(3);
    expect(resumeAfter(' 9 ', '3')).toBe(9);
    expect(resumeAfter('', '3')).toBe(3);
  });
  it('names the field that is not a sequence', () => {
    expect(() => resumeAfter('x', undefined)).toThrow(/^header\.last-event-id must be/);
    expect(() => resumeAfter(['1', '2'], undefined)).toThrow(/^header\.last-event-id must be sent once/);
    expect(() => resumeAfter(undefined, '-1')).toThrow(/^query\.last_event_id must be/);
    expect(() => resumeAfter(undefined, '1e3')).toThrow(/^query\.last_event_id/);
  });
});

describe('eventFrame', () => {
  it('writes id, event and one data line, even for text with newlines', () => {
    expect(eventFrame({ sequence: 3, kind: 'message', data: { role: 'agent', parts: [{ type: 'text', text: 'a\nb' }] }, created_at: '' })).toBe(
      'id: 3\nevent: message\ndata: {"role":"agent","parts":[{"type":"text","text":"a\\nb"}]}\n\n',
    );
  });
});
