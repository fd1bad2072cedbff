// Which task changes a webhook receives: names from TASK_WEBHOOK_EVENTS, or `*` for all of them
// (including names added later).
import { Invalid } from '../../core/errors.js';
import { TASK_WEBHOOK_EVENTS } from '../contract.js';

export const ALL_TASK_EVENTS = '*';

/** The list as given, without repeats; Invalid names the first entry that is not an event name or `*`. */
export function parseTaskEvents(events: readonly string[], field: string): string[] {
  events.forEach((name, index) => {
    if (name !== ALL_TASK_EVENTS && !(TASK_WEBHOOK_EVENTS as readonly string[]).includes(name)) {
      throw new Invalid(`${field}[${index}]`, `is not a task event: ${JSON.stringify(name)} (one of ${TASK_WEBHOOK_EVENTS.join(', ')}, or "*" for all)`);
    }
  });
  return [...new Set(events)];
}

export function receives(events: readonly string[], name: string): boolean {
  return events.includes(ALL_TASK_EVENTS) || events.includes(name);
}
