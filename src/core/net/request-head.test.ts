import { describe, expect, it } from 'vitest';
import { headEnd, parseRequestHead } from './request-head.js';

const parse = (text: string) => {
  const buffer = Buffer.from(text, 'latin1');
  const end = headEnd(buffer, 0);
  return end === -1 ? undefined : parseRequestHead(buffer, 0, end);
};

describe('first request heads read by the front door', () => {
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
});
