// /alerts: open and resolved alerts, newest first; an open one can be resolved here.
import { useState } from 'react';
import { Link } from 'react-router';
import { query } from '../../api/client';
import { TimeAgo } from '../../components/format';
import { PageTitle } from '../../components/PageTitle';
import { Loaded } from '../../components/states';
import { useApi } from '../../hooks/useApi';
import { AlertTabs } from './AlertTabs';
import { listWithTotal } from './listWithTotal';
import { resolveAlert } from './resolveAlert';
import type { Alert } from './types';
import './alerts.css';

const PAGE_SIZE = 25;
const FILTERS = [
  ['open', 'Open', false],
  ['resolved', 'Resolved', true],
  ['all', 'All', undefined],
] as const;
type Filter = (typeof FILTERS)[number][0];

export default function AlertsPage() {
  const [filter, setFilter] = useState<Filter>('open');
  const [offset, setOffset] = useState(0);
  const [busy, setBusy] = useState<string | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const resolved = FILTERS.find(([name]) => name === filter)![2];
  const alerts = useApi((signal) => listWithTotal<Alert>(`/v1/alerts${query({ resolved, limit: PAGE_SIZE, offset })}`, signal), [resolved, offset], { pollMs: 20_000 });

  async function resolve(alert: Alert) {
    setBusy(alert.id);
    setFailure(null);
    try {
      await resolveAlert(alert.id);
      await alerts.reload();
    } catch (caught) {
      setFailure((caught as Error).message);
    } finally {
      setBusy(null);
    }
  }

  return (
    <>
      <PageTitle title="Alerts" />
      <AlertTabs />
      <div className="segmented" role="group" aria-label="Show">
        {FILTERS.map(([name, label]) => (
          <button
            key={name}
            type="button"
            aria-pressed={filter === name}
            onClick={() => {
              setFilter(name);
              setOffset(0);
            }}
          >
            {label}
          </button>
        ))}
      </div>
      {failure && (
        <p className="form-error" role="alert">
          {failure}
        </p>
      )}
      <Loaded state={alerts} isEmpty={(page) => page.rows.length === 0} empty={<p>{filter === 'open' ? 'No open alerts.' : 'No alerts.'}</p>}>
        {({ rows, total }) => (
          <>
            <p className="muted">
              {total.toLocaleString('en-US')} {filter === 'all' ? '' : filter} alert{total === 1 ? '' : 's'}
            </p>
            <div className="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Severity</th>
                    <th scope="col">Type</th>
                    <th scope="col">Message</th>
                    <th scope="col">About</th>
                    <th scope="col">Raised</th>
                    <th scope="col">Status</th>
                    <th scope="col">
                      <span className="visually-hidden">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {rows.map((alert) => (
                    <tr key={alert.id} data-testid="alert-row" data-alert-id={alert.id}>
                      <td>
                        <span className={`severity severity-${alert.severity}`}>{alert.severity}</span>
                      </td>
                      <td>{alert.type}</td>
                      <td className="alert-message">{alert.message}</td>
                      <td>
                        <ResourceLink resource={alert.resource} />
                      </td>
                      <td>
                        <TimeAgo iso={alert.created_at} />
                      </td>
                      <td>
                        <span className={`status status-${alert.resolved ? 'resolved' : 'open'}`}>{alert.resolved ? 'resolved' : 'open'}</span>
                        {alert.resolved_at && (
                          <div className="muted">
                            <TimeAgo iso={alert.resolved_at} />
                          </div>
                        )}
                      </td>
                      <td>
                        {!alert.resolved && (
                          <button type="button" disabled={busy === alert.id} onClick={() => void resolve(alert)} aria-label={`Resolve ${alert.type} alert: ${alert.message}`}>
                            {busy === alert.id ? 'Resolving…' : 'Resolve'}
                          </button>
                        )}
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
              <button type="button" disabled={offset + PAGE_SIZE >= total} onClick={() => setOffset(offset + PAGE_SIZE)}>
                Older
              </button>
            </div>
          </>
        )}
      </Loaded>
    </>
  );
}

function ResourceLink({ resource }: { resource: Alert['resource'] }) {
  const to =
    resource.kind === 'sandbox' ? `/sandboxes/${resource.id}` : resource.kind === 'session' ? `/sessions/${encodeURIComponent(resource.id)}` : resource.kind === 'run' ? `/runs/${resource.id}` : null;
  const label = `${resource.kind} ${resource.id}`;
  return to ? <Link to={to}>{label}</Link> : <span>{label}</span>;
}
