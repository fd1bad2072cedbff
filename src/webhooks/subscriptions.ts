// Which events an endpoint receives: a list of types from the published catalogue, or `*` for every
// type (including types added later).
import { Invalid } from '../core/errors.js';
import { PUBLISHED_EVENT_TYPES, type PublishedEventType } from '../core/events/published.js';

export const ALL_EVENTS = '*';
export type Subscription = PublishedEventType | typeof ALL_EVENTS;

/** The list as given, without repeats; Invalid names the first entry that is not a catalogue type or `*`. */
export function parseSubscriptions(events: readonly string[], field: string): Subscription[] {
  events.forEach((type, index) => {
    if (type !== ALL_EVENTS && !(PUBLISHED_EVENT_TYPES as readonly string[]).includes(type)) {
      throw new Invalid(`${field}[${index}]`, `is not an event type: ${JSON.stringify(type)} (one of ${PUBLISHED_EVENT_TYPES.join(', ')}, or "*" for all)`);
    }
  });
  return [...new Set(events)] as Subscription[];
}

export function subscribesTo(subscriptions: readonly string[], type: string): boolean {
  return subscriptions.includes(ALL_EVENTS) || subscriptions.includes(type);
}
