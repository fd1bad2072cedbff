import { describe, expect, it } from 'vitest';
import { AnswerCounter } from './answer-counter.js';
import { MalformedBody, MessageBody } from './message-body.js';
import { forwardedHead, headEnd, parseRequestHead } from './request-head.js';

const parse = (text: string) => {
  const buffer = Buffer.from(text, 'latin1');
  const end = headEnd(buffer, 0);
  return end === -1 ? undefined : parseRequestHead(buffer, 0, end);
};

/** Feeds `bytes` to a body split at every offset in turn: the body must end at the same byte each time. */
function bodyLength(framing: 'chunked' | number, bytes: string): number[] {
  const buffer = Buffer.from(bytes, 'latin1');
  const lengths: number[] = [];
  for (let split = 0; split <= buffer.length; split++) {
    const body = new MessageBody(framing);
    let taken = 0;
    for (const part of [buffer.subarray(0, split), buffer.subarray(split)]) {
      if (body.done) break;
      taken += body.take(part, 0);
    }
    lengths.push(body.done ? taken : -1);
  }
  return [...new Set(lengths)];
}

describe('request heads read by the preview relay', () => {
  it('reads method, target, host and body framing of a plain request', () => {
    const head = parse('POST /a?b=1 HTTP/1.1\r\nHost: sbx-3000.localhost\r\nContent-Length: 12\r\n\r\nbody')!;
    expect([head.method, head.url, head.headers.host, head.body, head.needsNode]).toEqual(['POST', '/a?b=1', 'sbx-3000.localhost', 12, false]);
    expect(parse('GET / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: Chunked\r\n\r\n')!.body).toBe('chunked');
  });

  it('finds no head until the empty line has arrived', () => {
    expect(parse('GET / HTTP/1.1\r\nHost: x\r\n')).toBeUndefined();
  });

  it('leaves ambiguous or unusual requests to Node', () => {
    for (const text of [
      'GET / HTTP/1.1\nHost: x\r\n\r\n',
      'GET / HTTP/1.1\r\nHost: x\r\n folded\r\n\r\n',
      'GET / HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n',
      'GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n',
      'GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\n',
      'GET / HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n',
      'GET / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n',
      'GET / HTTP/1.1\r\nHost : x\r\n\r\n',
      'GET / HTTP/1.1\r\nHost: x\u0000\r\n\r\n',
      'GET / HTTP/2.0\r\nHost: x\r\n\r\n',
      'GET  / HTTP/1.1\r\nHost: x\r\n\r\n',
      'GET / HTTP/1.1\r\n\r\n',
    ]) {
      expect(parse(text), JSON.stringify(text)).toBeNull();
    }
    expect(parse('GET / HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n')!.needsNode).toBe(true);
    expect(parse('CONNECT x:443 HTTP/1.1\r\nHost: x:443\r\n\r\n')!.needsNode).toBe(true);
  });

  it('copies a head with nothing to remove and appends X-Forwarded-*', () => {
    const text = 'GET / HTTP/1.1\r\nHost: h\r\nAuthorization: Bearer theirs\r\n\r\n';
    const buffer = Buffer.from(text);
    const head = parseRequestHead(buffer, 0, buffer.length)!;
    const { copy, append } = forwardedHead(head, buffer, 0, buffer.length, { clientAddress: '1.2.3.4', scheme: 'https', portIsProtected: false });
    expect(copy!.toString() + append).toBe('GET / HTTP/1.1\r\nHost: h\r\nAuthorization: Bearer theirs\r\nX-Forwarded-For: 1.2.3.4\r\nX-Forwarded-Proto: https\r\nX-Forwarded-Host: h\r\n\r\n');
  });

  it('removes Paddock credentials, the preview cookie and forged forwarding headers', () => {
    const text = 'GET / HTTP/1.1\r\nHost: h\r\nAuthorization: Bearer svc_sk_x\r\nCookie: a=1; paddock_preview=9.sig\r\nX-Forwarded-For: 9.9.9.9\r\nX-Forwarded-Host: evil\r\nProxy-Authorization: Basic eA==\r\n\r\n';
    const buffer = Buffer.from(text);
    const head = parseRequestHead(buffer, 0, buffer.length)!;
    const { copy, append } = forwardedHead(head, buffer, 0, buffer.length, { clientAddress: '1.2.3.4', scheme: 'http', portIsProtected: false });
    expect(copy).toBeNull();
    expect(append).toBe('GET / HTTP/1.1\r\nHost: h\r\nCookie: a=1\r\nX-Forwarded-For: 9.9.9.9, 1.2.3.4\r\nX-Forwarded-Proto: http\r\nX-Forwarded-Host: h\r\n\r\n');
    const basic = Buffer.from('GET / HTTP/1.1\r\nHost: h\r\nAuthorization: Basic eDp5\r\n\r\n');
    const protectedHead = forwardedHead(parseRequestHead(basic, 0, basic.length)!, basic, 0, basic.length, { clientAddress: '1.2.3.4', scheme: 'http', portIsProtected: true });
    expect(protectedHead.append).not.toContain('Authorization');
  });
});

describe('request bodies measured by the preview relay', () => {
  it('ends a Content-Length body after that many bytes, however the bytes arrive', () => {
    expect(bodyLength(5, 'helloGET / HTTP/1.1')).toEqual([5]);
  });

  it('ends a chunked body after the last chunk and its trailers, however the bytes arrive', () => {
    const body = '5\r\nhello\r\na;name=value\r\n0123456789\r\n0\r\nX-Trailer: 1\r\n\r\n';
    expect(bodyLength('chunked', `${body}GET / HTTP/1.1\r\n`)).toEqual([body.length]);
    expect(bodyLength('chunked', '0\r\n\r\nNEXT')).toEqual([5]);
  });

  it('refuses malformed chunk framing', () => {
    for (const bytes of ['x\r\n', '5\r\nhelloXX', '5\nhello', '\r\n', '0\r\nTrailer\n']) {
      expect(() => new MessageBody('chunked').take(Buffer.from(bytes), 0), bytes).toThrow(MalformedBody);
    }
  });
});

describe('answers followed by the preview relay', () => {
  /** Feeds `bytes` one byte at a time and reports whether the counter is settled after each answer. */
  function settledAfter(methods: string[], bytes: string): boolean {
    const counter = new AnswerCounter();
    for (const method of methods) counter.sent(method);
    const buffer = Buffer.from(bytes, 'latin1');
    for (let i = 0; i < buffer.length; i++) counter.received(buffer.subarray(i, i + 1));
    return counter.settled;
  }

  it('is settled once every request sent has its whole answer, however the bytes arrive', () => {
    const sized = 'HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello';
    const chunked = 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n';
    const head = 'HTTP/1.1 200 OK\r\nContent-Length: 99\r\n\r\n';
    const interim = 'HTTP/1.1 100 Continue\r\n\r\n';
    const empty = 'HTTP/1.1 204 No Content\r\n\r\n';
    expect(settledAfter(['GET', 'POST', 'HEAD', 'PUT'], sized + chunked + head + interim + empty)).toBe(true);
    expect(settledAfter(['GET', 'GET'], sized + chunked.slice(0, -2))).toBe(false);
    expect(settledAfter(['GET', 'GET'], sized)).toBe(false);
    expect(settledAfter(['PUT'], interim)).toBe(false);
  });

  it('is never settled after an answer whose end is the connection close', () => {
    expect(settledAfter(['GET'], 'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nuntil the end')).toBe(false);
    expect(settledAfter(['GET'], 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n')).toBe(false);
  });
});
