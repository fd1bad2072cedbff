// Server-sent event framing of a task's events: `id:` the sequence, `event:` the kind, `data:` the
// event's fields as one line of JSON; and the heartbeat comment.
import type { TaskEvent } from '../contract.js';

export function eventFrame(event: TaskEvent): string {
  // JSON.stringify never emits a raw newline, so the data is always one `data:` line.
  return `id: ${event.sequence}\nevent: ${event.kind}\ndata: ${JSON.stringify(event.data)}\n\n`;
}

export const HEARTBEAT_FRAME = ': heartbeat\n\n';

/** True unless the Accept header excludes text/event-stream (no header accepts everything). */
export function acceptsEventStream(accept: string | undefined): boolean {
  if (accept === undefined || accept.trim() === '') return true;
  return accept.split(',').some((range) => {
    const [type, ...parameters] = range.trim().toLowerCase().split(';');
    const refused = parameters.some((parameter) => /^\s*q\s*=\s*0(\.0*)?\s*$/.test(parameter));
    return !refused && ['text/event-stream', 'text/*', '*/*'].includes(type.trim());
  });
}
