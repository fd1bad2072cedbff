// A run's lifecycle events in order, read again whenever the run changes.
import { api } from '../../api/client';
import { TimeAgo } from '../../components/format';
import { Loaded } from '../../components/states';
import { useApi } from '../../hooks/useApi';
import type { RunEvents } from './types';

export function RunTimeline({ runPath, changedAt }: { runPath: string; changedAt: string }) {
  const events = useApi((signal) => api.get<RunEvents>(`${runPath}/events?limit=200`, signal), [runPath, changedAt]);
  return (
    <Loaded state={events} isEmpty={(data) => data.events.length === 0} empty={<p>No events yet.</p>}>
      {(data) => (
        <ol className="timeline">
          {data.events.map((event) => (
            <li key={event.sequence}>
              <TimeAgo iso={event.timestamp} /> <code>{event.type.replace('pipeline.', '')}</code>
              {event.stage && <> · {event.stage}</>}
            </li>
          ))}
        </ol>
      )}
    </Loaded>
  );
}
