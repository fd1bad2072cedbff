import { describe, expect, it } from 'vitest';
import { parseClientFrame } from './framing.js';

const text = (value: string) => Buffer.from(value, 'utf8');

describe('parseClientFrame', () => {
  it('treats binary frames as keystrokes, even when they look like JSON', () => {
    expect(parseClientFrame(text('{"type":"resize","cols":80,"rows":24}'), true)).toEqual({ kind: 'input', data: text('{"type":"resize","cols":80,"rows":24}') });
  });
  it('reads a text JSON object with a type as a control message', () => {
    expect(parseClientFrame(text('{"type":"resize","cols":120,"rows":40}'), false)).toEqual({ kind: 'resize', cols: 120, rows: 40 });
  });
  it('treats other text as keystrokes: plain text, braces, JSON without a type, arrays', () => {
    for (const value of ['ls -la\r', '{ echo hi; }\r', '{"cols":1}', '[1,2]', '{"type":1}', '{']) {
      expect(parseClientFrame(text(value), false)).toEqual({ kind: 'input', data: text(value) });
    }
  });
  it('rejects unknown control types and bad sizes', () => {
    expect(parseClientFrame(text('{"type":"ping"}'), false).kind).toBe('invalid');
    expect(parseClientFrame(text('{"type":"resize","cols":0,"rows":24}'), false).kind).toBe('invalid');
    expect(parseClientFrame(text('{"type":"resize","cols":80.5,"rows":24}'), false).kind).toBe('invalid');
    expect(parseClientFrame(text('{"type":"resize","cols":80,"rows":5000}'), false).kind).toBe('invalid');
  });
});
