import { describe, expect, it } from 'vitest';
import { AnswerFraming } from './answer-framing.js';

/** Feeds `text` in pieces of `step` bytes; what came out, and the last push's verdict. */
function feed(framing: AnswerFraming, text: string, step = text.length) {
  const bytes = Buffer.from(text, 'latin1');
  const out: Buffer[] = [];
  let last = framing.push(Buffer.alloc(0));
  for (let at = 0; at < bytes.length; at += step) {
    last = framing.push(bytes.subarray(at, at + step));
    out.push(...last.output);
  }
  return { text: Buffer.concat(out).toString('latin1'), ...last };
}

const CHUNKED = 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Type: application/x-ndjson\r\n\r\n5;ext=1\r\nhello\r\n1a\r\n' + 'x'.repeat(26) + '\r\n0\r\nX-Trailer: 1\r\n\r\n';

describe('framing the answers that pass through the fast lane', () => {
  it('completes an answer of known length at its last byte, however it is split', () => {
    const answer = 'HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\nhello world';
    for (const step of [1, 3, 7, answer.length]) {
      const framed = feed(new AnswerFraming('POST', false), answer, step);
      expect(framed).toMatchObject({ text: answer, complete: true, reusable: true, untilClose: false });
    }
    const partial = feed(new AnswerFraming('POST', false), answer.slice(0, -1));
    expect(partial.complete).toBe(false);
  });

  it('passes a chunked body through unchanged, extensions and trailers included, and completes after the trailers', () => {
    for (const step of [1, 2, 5, CHUNKED.length]) {
      const framed = feed(new AnswerFraming('GET', true), CHUNKED, step);
      expect(framed.complete).toBe(true);
      expect(framed.text).toBe(CHUNKED);
    }
    expect(feed(new AnswerFraming('GET', true), CHUNKED.slice(0, -2)).complete).toBe(false);
  });

  it('has no body for HEAD, 204 and 304, whatever the length says', () => {
    expect(feed(new AnswerFraming('HEAD', true), 'HTTP/1.1 200 OK\r\nContent-Length: 500\r\n\r\n').complete).toBe(true);
    expect(feed(new AnswerFraming('GET', true), 'HTTP/1.1 204 No Content\r\n\r\n').complete).toBe(true);
    expect(feed(new AnswerFraming('GET', true), 'HTTP/1.1 304 Not Modified\r\nContent-Length: 9\r\n\r\n').complete).toBe(true);
  });

  it('leaves the hop headers of a node behind, and those its Connection header names', () => {
    const framed = feed(new AnswerFraming('GET', true), 'HTTP/1.1 200 OK\r\nConnection: keep-alive, X-Hop\r\nKeep-Alive: timeout=72\r\nX-Hop: 1\r\nX-Kept: 2\r\nContent-Length: 0\r\n\r\n');
    expect(framed.text).toBe('HTTP/1.1 200 OK\r\nX-Kept: 2\r\nContent-Length: 0\r\n\r\n');
    // The lines kept go on as they came, and a name is matched whatever its case.
    const spaced = feed(new AnswerFraming('GET', true), 'HTTP/1.1 200 OK\r\nKEEP-ALIVE: timeout=72\r\nX-Spaced:   a  b \r\nconnection: x-other\r\nX-OTHER: 1\r\nContent-Length: 0\r\n\r\n');
    expect(spaced.text).toBe('HTTP/1.1 200 OK\r\nX-Spaced:   a  b \r\nContent-Length: 0\r\n\r\n');
    // This node's own answers go out as its server wrote them.
    const own = 'HTTP/1.1 200 OK\r\nConnection: keep-alive\r\nKeep-Alive: timeout=72\r\nContent-Length: 0\r\n\r\n';
    expect(feed(new AnswerFraming('GET', false), own).text).toBe(own);
  });

  it('reads an answer without a length to the end of its connection, and says the client must close too', () => {
    const framing = new AnswerFraming('GET', true);
    const framed = feed(framing, 'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nsome');
    expect(framed).toMatchObject({ complete: false, untilClose: true, reusable: false });
    expect(framed.text).toBe('HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\nsome');
    expect(framing.push(Buffer.from(' more')).output.map(String)).toEqual([' more']);
  });

  it('does not reuse a connection the answer closes, or an HTTP/1.0 one', () => {
    expect(feed(new AnswerFraming('GET', true), 'HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n')).toMatchObject({ complete: true, reusable: false });
    expect(feed(new AnswerFraming('GET', true), 'HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n')).toMatchObject({ complete: true, reusable: false });
  });

  it('passes an interim answer on and waits for the final one', () => {
    const framed = feed(new AnswerFraming('GET', true), 'HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok', 4);
    expect(framed.complete).toBe(true);
    expect(framed.text).toBe('HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
  });

  it('refuses what it cannot frame: a broken status line, two lengths, another coding, a bad chunk, bytes after the answer', () => {
    const bad = [
      'HTTP/2 200 OK\r\n\r\n',
      'HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n',
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n',
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n',
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nokXX',
      'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokextra',
      'HTTP/1.1 200 OK\r\nno colon here\r\n\r\n',
    ];
    for (const answer of bad) expect(() => feed(new AnswerFraming('GET', true), answer), answer).toThrow();
  });
});
