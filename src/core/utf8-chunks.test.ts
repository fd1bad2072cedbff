import { describe, expect, it } from 'vitest';
import { Utf8Chunks, wholeCharactersLength } from './utf8-chunks.js';

describe('Utf8Chunks', () => {
  it('keeps a character cut between chunks whole, with each piece at its byte offset', () => {
    const bytes = Buffer.from('café 🙂!', 'utf8');
    // Cut inside é (2 bytes) and inside 🙂 (4 bytes), one byte at a time through the emoji.
    const cuts = [4, 5, 8, 9, 10, bytes.length];
    const stream = new Utf8Chunks();
    const pieces = [];
    let at = 0;
    for (const cut of cuts) {
      pieces.push(stream.push(bytes.subarray(at, cut), at));
      at = cut;
    }
    expect(pieces).toEqual([[{ text: 'caf', offset: 0 }], [{ text: 'é', offset: 3 }], [{ text: ' ', offset: 5 }], [], [{ text: '🙂', offset: 6 }], [{ text: '!', offset: 10 }]]);
    expect(stream.end()).toEqual([]);
    expect(stream.resumeOffset).toBe(bytes.length);
  });

  it('gives what a stream never completed at its end, and before a chunk that does not follow on', () => {
    const cut = new Utf8Chunks();
    expect(cut.push(Buffer.from([0x61, 0xe2, 0x82]), 0)).toEqual([{ text: 'a', offset: 0 }]);
    expect(cut.resumeOffset).toBe(1);
    expect(cut.end()).toEqual([{ text: '\uFFFD', offset: 1 }]);
    const gap = new Utf8Chunks();
    gap.push(Buffer.from([0x61, 0xc3]), 0);
    expect(gap.push(Buffer.from('b'), 100)).toEqual([
      { text: '\uFFFD', offset: 1 },
      { text: 'b', offset: 100 },
    ]);
  });

  it('measures whole characters, invalid bytes included', () => {
    expect(wholeCharactersLength(Buffer.from('abc'))).toBe(3);
    expect(wholeCharactersLength(Buffer.from([0x61, 0xf0, 0x9f, 0x99]))).toBe(1);
    expect(wholeCharactersLength(Buffer.from([0xf0, 0x9f, 0x99, 0x82]))).toBe(4);
    expect(wholeCharactersLength(Buffer.from([0x80, 0x80, 0x80, 0x80, 0x80]))).toBe(5);
  });
});
