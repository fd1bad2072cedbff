// Checks a message's parts one by one, so a bad part is refused with a 400 that names it
// (`body.parts[2].data`), and answers what a reply to an approval decides.
import { Invalid } from '../../core/errors.js';
import type { Part } from '../contract.js';

export const MAX_PARTS = 20;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const MIME_TYPE = /^[\w.+-]+\/[\w.+-]+(?:\s*;.*)?$/;

type RawPart = { type: string; [field: string]: unknown };

export function checkParts(raw: RawPart[]): Part[] {
  if (raw.length === 0) throw new Invalid('body.parts', 'must hold at least one part');
  if (raw.length > MAX_PARTS) throw new Invalid('body.parts', `holds ${raw.length} parts: at most ${MAX_PARTS}`);
  return raw.map((part, index) => checkPart(part, `body.parts[${index}]`));
}

function checkPart(part: RawPart, at: string): Part {
  switch (part.type) {
    case 'text':
      if (typeof part.text !== 'string' || part.text.length === 0) throw new Invalid(`${at}.text`, 'must be a non-empty string (a text part)');
      return { type: 'text', text: part.text };
    case 'data':
      if (part.data === undefined || part.data === null) throw new Invalid(`${at}.data`, 'is required (a data part carries any JSON value but null)');
      if (part.name !== undefined && typeof part.name !== 'string') throw new Invalid(`${at}.name`, 'must be a string');
      return { type: 'data', data: part.data, ...(typeof part.name === 'string' ? { name: part.name } : {}) };
    case 'file':
      if (typeof part.name !== 'string' || part.name.length === 0 || part.name.length > 255) throw new Invalid(`${at}.name`, 'must be a file name of 1-255 characters (a file part)');
      if (typeof part.mime_type !== 'string' || !MIME_TYPE.test(part.mime_type)) throw new Invalid(`${at}.mime_type`, 'must be a media type such as text/plain (a file part)');
      if (typeof part.data !== 'string' || !BASE64.test(part.data)) throw new Invalid(`${at}.data`, 'must be the file content, base64-encoded (a file part)');
      return { type: 'file', name: part.name, mime_type: part.mime_type, data: part.data };
    default:
      throw new Invalid(`${at}.type`, `must be text, data or file (got ${JSON.stringify(part.type)})`);
  }
}

/** A reply to a task waiting for input rejects its approval when a data part says {"decision": "reject"}; anything else approves. */
export function decisionOf(parts: Part[]): 'approve' | 'reject' {
  const rejects = parts.some((part) => part.type === 'data' && typeof part.data === 'object' && part.data !== null && (part.data as Record<string, unknown>).decision === 'reject');
  return rejects ? 'reject' : 'approve';
}

/** The text parts, joined: recorded as the approval's comment. */
export function commentOf(parts: Part[]): string | null {
  const text = parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n');
  return text || null;
}
