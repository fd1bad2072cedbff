// /sandboxes/:id/activity: the sessions recorded in the sandbox and its lifecycle events, every 20 s.
import { Link } from 'react-router';
import { api, query } from '../../api/client';
import { TimeAgo, Usd } from '../../components/format';
import { Loaded } from '../../components/states';
import { useApi } from '../../hooks/useApi';
import { SandboxPage, useSandboxId } from './SandboxPage';
import type { SandboxEvent, SessionSummary } from './types';

export default function SandboxActivityPage() {
  const id = useSandboxId();
  const sessions = useApi((signal) => api.get<SessionSummary[]>(`/v1/sessions${query({ sandbox_id: id, limit: 50 })}`, signal), [id], { pollMs: 20_000 });
  const events = useApi((signal) => api.get<SandboxEvent[]>(`/v1/sandboxes/${encodeURIComponent(id)}/events${query({ limit: 100 })}`, signal), [id], { pollMs: 20_000 });
  return (
    <SandboxPage id={id} title="Sessions & events">
      <section aria-labelledby="sessions-heading">
        <h2 id="sessions-heading">Sessions</h2>
        <Loaded state={sessions} empty={<p>No sessions recorded in this sandbox.</p>}>
          {(rows) => (
            <div className="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Session</th>
                    <th scope="col">Status</th>
                    <th scope="col">Agent</th>
                    <th scope="col">Events</th>
                    <th scope="col">Cost</th>
                    <th scope="col">Started</th>
                  </tr>
                </thead>
                <tbody>
                  {rows.map((session) => (
                    <tr key={session.id}>
                      <td className="mono">
                        <Link to={`/sessions/${encodeURIComponent(session.id)}`}>{session.id}</Link>
                      </td>
                      <td>
                        <span className={`status status-${session.status}`}>{session.status}</span>
                      </td>
                      <td>{session.agent_type ?? <span className="muted">—</span>}</td>
                      <td>{session.event_count}</td>
                      <td>
                        <Usd amount={session.cost_usd} />
                      </td>
                      <td>
                        <TimeAgo iso={session.started_at ?? session.created_at} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </Loaded>
      </section>
      <section aria-labelledby="events-heading">
        <h2 id="events-heading">Lifecycle events</h2>
        <Loaded state={events} empty={<p>No events yet.</p>}>
          {(rows) => (
            <div className="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Event</th>
                    <th scope="col">Change</th>
                    <th scope="col">When</th>
                  </tr>
                </thead>
                <tbody>
                  {rows.map((event) => (
                    <tr key={event.id}>
                      <td className="mono">{event.type}</td>
                      <td>{event.from || event.to ? `${event.from ?? '—'} → ${event.to ?? '—'}` : <span className="muted">—</span>}</td>
                      <td>
                        <TimeAgo iso={event.at} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </Loaded>
      </section>
    </SandboxPage>
  );
}
