import { describe, expect, it } from 'vitest';
import { Scrollback } from './scrollback.js';

describe('Scrollback', () => {
  it('keeps everything under its capacity', () => {
    const scrollback = new Scrollback(16);
    scrollback.append(Buffer.from('abc\n'));
    scrollback.append(Buffer.from('def'));
    expect(scrollback.contents().toString()).toBe('abc\ndef');
  });
  it('drops the oldest bytes past its capacity and replays from a line boundary', () => {
    const scrollback = new Scrollback(10);
    scrollback.append(Buffer.from('line1\nline2\n'));
    scrollback.append(Buffer.from('line3\n'));
    expect(scrollback.contents().toString()).toBe('line3\n');
    scrollback.append(Buffer.from('xy'));
    expect(scrollback.contents().toString()).toBe('line3\nxy');
  });
});
