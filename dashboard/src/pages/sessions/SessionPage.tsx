// /sessions/:id: the session's summary (tokens, cost, trust score and findings) and its replay timeline,
// filterable by event type, with the selected event shown in full.
import { useMemo, useState } from 'react';
import { Link, useParams } from 'react-router';
import { api } from '../../api/client';
import { formatDuration, Id, TimeAgo, Usd } from '../../components/format';
import { PageTitle } from '../../components/PageTitle';
import { Loaded } from '../../components/states';
import { useApi } from '../../hooks/useApi';
import { FindingsTable } from './FindingsTable';
import { ReplayTimeline } from './ReplayTimeline';
import { TrustScore } from './TrustScore';
import { EVENT_TYPES, type EventType, type Finding, type ReplayEvent, type ReplaySummary, type Session } from './types';
import { useReplayChunks } from './useReplayChunks';
import './sessions.css';

const LIVE_POLL_MS = 5_000;
const IDLE_POLL_MS = 30_000;

export default function SessionPage() {
  const id = useParams().id!;
  const path = `/v1/sessions/${encodeURIComponent(id)}`;
  const session = useApi((signal) => api.get<Session>(path, signal), [path], { pollMs: IDLE_POLL_MS });
  const live = session.data?.status === 'active';
  const summary = useApi((signal) => api.get<ReplaySummary>(`${path}/replay/summary`, signal), [path], { pollMs: live ? LIVE_POLL_MS : IDLE_POLL_MS });
  const [type, setType] = useState<EventType | ''>('');
  const [selected, setSelected] = useState<ReplayEvent | null>(null);
  const knownTotal = summary.data ? (type === '' ? summary.data.event_count : summary.data.counts[type]) : undefined;
  const replay = useReplayChunks(id, type, knownTotal);
  const findingsBySequence = useMemo(() => {
    const map = new Map<number, Finding[]>();
    for (const finding of summary.data?.findings ?? []) map.set(finding.sequence, [...(map.get(finding.sequence) ?? []), finding]);
    return map;
  }, [summary.data]);

  return (
    <>
      <PageTitle title={`Session ${id}`}>
        <Link to="/sessions">All sessions</Link>
      </PageTitle>
      <Loaded state={summary}>
        {(facts) => (
          <>
            <div className="cards session-cards">
              <div className="card">
                <div className="muted">Status</div>
                <div className="value">
                  <span className={`status status-${facts.status}`}>{facts.status}</span>
                </div>
              </div>
              <div className="card">
                <div className="muted">Tokens in / out</div>
                <div className="value" data-testid="session-tokens">
                  {facts.tokens_in.toLocaleString('en-US')} / {facts.tokens_out.toLocaleString('en-US')}
                </div>
              </div>
              <div className="card">
                <div className="muted">Cost</div>
                <div className="value" data-testid="session-cost">
                  <Usd amount={facts.cost_usd} />
                </div>
                <div className="muted">
                  LLM <Usd amount={facts.llm_cost_usd} /> · compute <Usd amount={facts.compute_cost_usd} />
                </div>
              </div>
              <div className="card">
                <div className="muted">Trust score</div>
                <div className="value" data-testid="session-trust">
                  <TrustScore score={facts.trust_score} />
                </div>
                <div className="muted">{facts.findings.length} findings</div>
              </div>
            </div>
            <section className="panel session-summary" aria-labelledby="summary-heading">
              <h2 id="summary-heading">Summary</h2>
              <dl className="facts">
                <dt>Agent</dt>
                <dd>{session.data?.agent_type ?? '—'}</dd>
                <dt>Model</dt>
                <dd>{session.data?.model ?? '—'}</dd>
                <dt>Events</dt>
                <dd>{facts.event_count.toLocaleString('en-US')}</dd>
                <dt>Duration</dt>
                <dd>{formatDuration(facts.duration_ms)}</dd>
                <dt>First event</dt>
                <dd>
                  <TimeAgo iso={facts.first_event_at} />
                </dd>
                <dt>Last event</dt>
                <dd>
                  <TimeAgo iso={facts.last_event_at} />
                </dd>
                {facts.sandbox_id && (
                  <>
                    <dt>Sandbox</dt>
                    <dd>
                      <Link to={`/sandboxes/${facts.sandbox_id}`}>{facts.sandbox_id}</Link>
                    </dd>
                  </>
                )}
                {facts.pipeline_run_id && (
                  <>
                    <dt>Pipeline run</dt>
                    <dd>
                      <Link to={`/runs/${facts.pipeline_run_id}`}>{facts.pipeline_run_id}</Link>
                    </dd>
                  </>
                )}
              </dl>
              {facts.findings.length > 0 && <FindingsTable findings={facts.findings} />}
            </section>
            <section aria-labelledby="timeline-heading">
              <h2 id="timeline-heading">Timeline</h2>
              <div className="type-filter" role="group" aria-label="Event type">
                <button type="button" aria-pressed={type === ''} onClick={() => setType('')}>
                  All ({facts.event_count.toLocaleString('en-US')})
                </button>
                {EVENT_TYPES.map((value) => (
                  <button key={value} type="button" aria-pressed={type === value} disabled={facts.counts[value] === 0 && type !== value} onClick={() => setType(value)}>
                    {value} ({facts.counts[value].toLocaleString('en-US')})
                  </button>
                ))}
              </div>
              {replay.total === 0 && knownTotal === 0 ? (
                <p className="state state-empty">No events{type ? ` of type ${type}` : ''}.</p>
              ) : (
                <div className="replay">
                  <ReplayTimeline replay={replay} startedAt={facts.first_event_at} findingsBySequence={findingsBySequence} selected={selected?.sequence ?? null} onSelect={setSelected} />
                  <EventDetails event={selected} findings={selected ? findingsBySequence.get(selected.sequence) : undefined} />
                </div>
              )}
            </section>
          </>
        )}
      </Loaded>
    </>
  );
}

function EventDetails({ event, findings }: { event: ReplayEvent | null; findings: Finding[] | undefined }) {
  if (!event) return <aside className="replay-details muted">Select an event to see it in full.</aside>;
  return (
    <aside className="replay-details" aria-label={`Event ${event.sequence}`} data-testid="replay-details">
      <h3>
        #{event.sequence} {event.type}
      </h3>
      <dl className="facts">
        <dt>Id</dt>
        <dd>
          <Id value={event.id} />
        </dd>
        <dt>At</dt>
        <dd>{new Date(event.timestamp).toLocaleString()}</dd>
        {event.cost_usd !== undefined && (
          <>
            <dt>Cost</dt>
            <dd>
              <Usd amount={event.cost_usd} />
            </dd>
          </>
        )}
      </dl>
      {findings?.map((finding) => (
        <p key={finding.rule} className={`finding-mark finding-${finding.severity}`}>
          {finding.rule} ({finding.severity}, −{finding.penalty}): {finding.evidence}
        </p>
      ))}
      <h4>Payload</h4>
      <pre tabIndex={0}>{JSON.stringify(event.data, null, 2)}</pre>
      {Object.keys(event.meta).length > 0 && (
        <>
          <h4>Meta</h4>
          <pre tabIndex={0}>{JSON.stringify(event.meta, null, 2)}</pre>
        </>
      )}
    </aside>
  );
}
