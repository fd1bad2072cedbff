// /sessions: the account's agent sessions, newest first, with their tokens, cost and trust score.
import { useState } from 'react';
import { Link } from 'react-router';
import { api, query } from '../../api/client';
import { TimeAgo, Usd } from '../../components/format';
import { PageTitle } from '../../components/PageTitle';
import { Loaded } from '../../components/states';
import { useApi } from '../../hooks/useApi';
import { TrustScore } from './TrustScore';
import { SESSION_STATUSES, type Session, type SessionStatus } from './types';
import './sessions.css';

const PAGE_SIZE = 50;

export default function SessionsPage() {
  const [status, setStatus] = useState<SessionStatus | ''>('');
  const [offset, setOffset] = useState(0);
  const sessions = useApi((signal) => api.get<Session[]>(`/v1/sessions${query({ status, limit: PAGE_SIZE + 1, offset })}`, signal), [status, offset], { pollMs: 20_000 });

  return (
    <>
      <PageTitle title="Sessions" />
      <div className="form-row session-filters">
        <label>
          Status
          <select
            value={status}
            onChange={(event) => {
              setStatus(event.target.value as SessionStatus | '');
              setOffset(0);
            }}
          >
            <option value="">Any</option>
            {SESSION_STATUSES.map((value) => (
              <option key={value} value={value}>
                {value}
              </option>
            ))}
          </select>
        </label>
      </div>
      <Loaded state={sessions} empty={<p>No sessions yet. Agents create one with their first event (POST /v1/events/ingest).</p>}>
        {(rows) => (
          <>
            <div className="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Session</th>
                    <th scope="col">Agent</th>
                    <th scope="col">Status</th>
                    <th scope="col">Events</th>
                    <th scope="col">Tokens in / out</th>
                    <th scope="col">Cost</th>
                    <th scope="col">Trust</th>
                    <th scope="col">Started</th>
                  </tr>
                </thead>
                <tbody>
                  {rows.slice(0, PAGE_SIZE).map((session) => (
                    <tr key={session.id}>
                      <td>
                        <Link to={`/sessions/${encodeURIComponent(session.id)}`} className="mono">
                          {session.id}
                        </Link>
                      </td>
                      <td>{session.agent_type ?? <span className="muted">—</span>}</td>
                      <td>
                        <span className={`status status-${session.status}`}>{session.status}</span>
                      </td>
                      <td>{session.event_count.toLocaleString('en-US')}</td>
                      <td>
                        {session.tokens_in.toLocaleString('en-US')} / {session.tokens_out.toLocaleString('en-US')}
                      </td>
                      <td>
                        <Usd amount={session.cost_usd} />
                      </td>
                      <td>
                        <TrustScore score={session.trust_score} />
                      </td>
                      <td>
                        <TimeAgo iso={session.started_at ?? session.created_at} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <div className="pager">
              <button type="button" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE_SIZE))}>
                Newer
              </button>
              <button type="button" disabled={rows.length <= PAGE_SIZE} onClick={() => setOffset(offset + PAGE_SIZE)}>
                Older
              </button>
            </div>
          </>
        )}
      </Loaded>
    </>
  );
}
