// Property-based tests of the agent protocol decoder: whatever runs in a sandbox can write to the
// agent's connection, so every byte stream, split anywhere, either decodes or fails with the protocol's
// own error, within bounded memory and time.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AgentProtocolError, decodeExitStatus, encodeFrame, FrameReader, maxIncomingFrameBytes, type Frame } from './protocol.js';

const seed = 16;
const frameTypes = ['S', 'O', 'F', 'X', 'N'];

const frameArbitrary = fc.record({
  type: fc.constantFrom(...frameTypes),
  data: fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes)),
});

/** `stream` cut at the given points (any order, any repeats). */
function split(stream: Buffer, cuts: number[]): Buffer[] {
  const points = [...new Set(cuts.map((cut) => cut % (stream.length + 1)))].sort((a, b) => a - b);
  const pieces: Buffer[] = [];
  let start = 0;
  for (const point of [...points, stream.length]) {
    pieces.push(stream.subarray(start, point));
    start = point;
  }
  return pieces;
}

/** Feeds the pieces; returns the frames decoded and the error that stopped it, if any. */
function decode(pieces: Buffer[]): { frames: Frame[]; error: unknown; largestBuffered: number } {
  const reader = new FrameReader();
  const frames: Frame[] = [];
  let largestBuffered = 0;
  try {
    for (const piece of pieces) {
      frames.push(...reader.push(piece));
      largestBuffered = Math.max(largestBuffered, reader.bufferedBytes);
    }
  } catch (error) {
    return { frames, error, largestBuffered };
  }
  return { frames, error: null, largestBuffered };
}

const largestPiece = (pieces: Buffer[]) => Math.max(0, ...pieces.map((piece) => piece.length));

describe('agent protocol decoder (property-based)', () => {
  it('decodes any sequence of frames, split at any points, to the same frames', () => {
    fc.assert(
      fc.property(fc.array(frameArbitrary, { maxLength: 20 }), fc.array(fc.nat(), { maxLength: 30 }), (sent, cuts) => {
        const stream = Buffer.concat(sent.map((frame) => encodeFrame(frame.type, frame.data)));
        const { frames, error } = decode(split(stream, cuts));
        expect(error).toBeNull();
        expect(frames.map((frame) => [frame.type, frame.data.toString('hex')])).toEqual(sent.map((frame) => [frame.type, frame.data.toString('hex')]));
      }),
      { seed, numRuns: 500 },
    );
  });

  it('answers random bytes with frames or its own protocol error, holding no more than one frame and one chunk', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 2000 }), fc.array(fc.nat(), { maxLength: 30 }), (bytes, cuts) => {
        const pieces = split(Buffer.from(bytes), cuts);
        const { frames, error, largestBuffered } = decode(pieces);
        if (error !== null) expect(error).toBeInstanceOf(AgentProtocolError);
        expect(frames.reduce((sum, frame) => sum + 5 + frame.data.length, 0)).toBeLessThanOrEqual(bytes.length);
        expect(largestBuffered).toBeLessThanOrEqual(5 + maxIncomingFrameBytes + largestPiece(pieces));
      }),
      { seed, numRuns: 2000 },
    );
  });

  it('answers mutated frame streams (flipped bytes, forged lengths, cut or repeated parts) the same way', () => {
    const mutation = fc.oneof(
      fc.record({ kind: fc.constant('flip' as const), at: fc.nat(), value: fc.integer({ min: 0, max: 255 }) }),
      fc.record({ kind: fc.constant('length' as const), at: fc.nat(), value: fc.integer({ min: 0, max: 0xffffffff }) }),
      fc.record({ kind: fc.constant('cut' as const), at: fc.nat(), value: fc.nat() }),
      fc.record({ kind: fc.constant('repeat' as const), at: fc.nat(), value: fc.nat() }),
    );
    fc.assert(
      fc.property(fc.array(frameArbitrary, { minLength: 1, maxLength: 10 }), fc.array(mutation, { maxLength: 5 }), fc.array(fc.nat(), { maxLength: 20 }), (sent, mutations, cuts) => {
        let stream = Buffer.concat(sent.map((frame) => encodeFrame(frame.type, frame.data)));
        for (const { kind, at, value } of mutations) {
          const offset = at % Math.max(1, stream.length);
          if (kind === 'flip' && stream.length) stream[offset] = value;
          else if (kind === 'length' && stream.length >= offset + 5) stream.writeUInt32BE(value, offset + 1);
          else if (kind === 'cut') stream = Buffer.concat([stream.subarray(0, offset), stream.subarray(offset + (value % 50))]);
          else if (kind === 'repeat') stream = Buffer.concat([stream, stream.subarray(offset, offset + (value % 50))]);
        }
        const pieces = split(stream, cuts);
        const { error, largestBuffered } = decode(pieces);
        if (error !== null) expect(error).toBeInstanceOf(AgentProtocolError);
        expect(largestBuffered).toBeLessThanOrEqual(5 + maxIncomingFrameBytes + largestPiece(pieces));
      }),
      { seed, numRuns: 1000 },
    );
  });

  it('refuses a forged length beyond the limit as soon as the header is in, before any of its data', () => {
    fc.assert(
      fc.property(fc.integer({ min: maxIncomingFrameBytes + 1, max: 0xffffffff }), fc.constantFrom(...frameTypes), (length, type) => {
        const header = Buffer.alloc(5);
        header.write(type, 'latin1');
        header.writeUInt32BE(length, 1);
        const reader = new FrameReader();
        expect(() => reader.push(header)).toThrow(AgentProtocolError);
        expect(reader.bufferedBytes).toBe(5);
      }),
      { seed, numRuns: 200 },
    );
  });

  it('decodes a largest frame trickled in 16-byte chunks in linear time', () => {
    const stream = encodeFrame('O', Buffer.alloc(maxIncomingFrameBytes, 7));
    const reader = new FrameReader();
    const started = performance.now();
    const frames: Frame[] = [];
    for (let offset = 0; offset < stream.length; offset += 16) frames.push(...reader.push(stream.subarray(offset, offset + 16)));
    expect(performance.now() - started).toBeLessThan(3000);
    expect(frames).toHaveLength(1);
    expect(frames[0].data.length).toBe(maxIncomingFrameBytes);
    expect(reader.bufferedBytes).toBe(0);
  });

  it('reads an exit status only from 1-3 decimal digits up to 255', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 8 }), (bytes) => {
        const data = Buffer.from(bytes);
        try {
          const status = decodeExitStatus(data);
          expect(Number.isInteger(status) && status >= 0 && status <= 255).toBe(true);
          expect(data.toString('latin1')).toBe(String(status).padStart(data.length, '0'));
        } catch (error) {
          expect(error).toBeInstanceOf(AgentProtocolError);
        }
      }),
      { seed, numRuns: 2000 },
    );
    expect(decodeExitStatus(Buffer.from('137'))).toBe(137);
    expect(() => decodeExitStatus(Buffer.from('NaN'))).toThrow(AgentProtocolError);
    expect(() => decodeExitStatus(Buffer.from(''))).toThrow(AgentProtocolError);
  });
});
