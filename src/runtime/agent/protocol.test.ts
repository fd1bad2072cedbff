import { describe, expect, it } from 'vitest';
import { encodeCommand, encodeFrame, FrameReader } from './protocol.js';

describe('agent protocol', () => {
  it('reassembles frames split at any byte', () => {
    const stream = Buffer.concat([encodeFrame('O', Buffer.from('hello')), encodeFrame('X', Buffer.from('0'))]);
    for (let cut = 0; cut <= stream.length; cut++) {
      const reader = new FrameReader();
      const frames = [...reader.push(stream.subarray(0, cut)), ...reader.push(stream.subarray(cut))];
      expect(frames.map((frame) => `${frame.type}:${frame.data}`)).toEqual(['O:hello', 'X:0']);
    }
  });

  it('refuses an oversized frame', () => {
    const header = Buffer.alloc(5);
    header.write('O');
    header.writeUInt32BE(64 << 20, 1);
    expect(() => new FrameReader().push(header)).toThrow(/frame/);
  });

  it('encodes a command as NUL-terminated strings, then stdin, then its end', () => {
    const encoded = encodeCommand({ argv: ['sh', '-c', 'cat'], cwd: '/workspace', env: ['A=1'], stdin: Buffer.from('in') });
    const frames = new FrameReader().push(encoded);
    expect(frames.map((frame) => frame.type)).toEqual(['R', 'I', 'E']);
    expect(frames[0].data.toString()).toBe('/workspace\x003\x00sh\x00-c\x00cat\x001\x00A=1\x00');
    expect(() => encodeCommand({ argv: ['a\0b'], cwd: '/', env: [] })).toThrow(/NUL/);
  });
});
