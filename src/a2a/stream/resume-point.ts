// Where a stream resumes: after the sequence in the Last-Event-ID header (what EventSource sends when
// it reconnects), else after the `last_event_id` query parameter (clients without EventSource), else
// from the start of the log.
import { Invalid } from '../../core/errors.js';

const SEQUENCE = /^\d{1,15}$/;

export function resumeAfter(header: string | string[] | undefined, query: string | undefined): number {
  if (Array.isArray(header)) throw new Invalid('header.last-event-id', 'must be sent once');
  if (header !== undefined && header.trim() !== '') return sequence('header.last-event-id', header.trim());
  if (query !== undefined) return sequence('query.last_event_id', query);
  return 0;
}

function sequence(field: string, raw: string): number {
  if (!SEQUENCE.test(raw)) throw new Invalid(field, `must be the id of an event of this stream (a sequence number: 0 or more), got ${JSON.stringify(raw.slice(0, 40))}`);
  return Number(raw);
}
