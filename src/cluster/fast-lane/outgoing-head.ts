// The head of a request the fast lane passes on to a worker: the client's request line and fields as
// sent, without those of the client's hop, with the client's address added to X-Forwarded-For and the
// signed node headers (forward.ts does the same for requests that go through Node's HTTP server).
import type { RequestHead } from '../../core/net/request-head.js';
import { HOP_BY_HOP } from '../forward.js';

/** The client's hop only (a body the lane passes on has a Content-Length, never a Transfer-Encoding). */
const CLIENT_HOP: ReadonlySet<string> = new Set(HOP_BY_HOP);

export function outgoingHead(head: RequestHead, clientAddress: string, signed: Record<string, string>): string {
  let text = `${head.method} ${head.url} HTTP/1.1\r\n`;
  let forwardedFor: string | null = null;
  for (let i = 0; i < head.fields.length; i += 2) {
    const lower = head.fields[i].toLowerCase();
    if (lower === 'x-forwarded-for') forwardedFor = forwardedFor === null ? head.fields[i + 1] : `${forwardedFor}, ${head.fields[i + 1]}`;
    else if (!CLIENT_HOP.has(lower)) text += `${head.fields[i]}: ${head.fields[i + 1]}\r\n`;
  }
  text += `x-forwarded-for: ${forwardedFor === null ? clientAddress : `${forwardedFor}, ${clientAddress}`}\r\n`;
  for (const name in signed) text += `${name}: ${signed[name]}\r\n`;
  return `${text}\r\n`;
}
