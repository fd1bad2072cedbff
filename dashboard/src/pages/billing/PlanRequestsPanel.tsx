// For the server's operators: plan requests waiting for a decision, approved or rejected from here.
import { useEffect, useState } from 'react';
import { api } from '../../api/client';
import { Id, TimeAgo } from '../../components/format';
import { Loaded } from '../../components/states';
import { useApi } from '../../hooks/useApi';
import type { OperatorAccount, PlanRequest } from './types';

export function PlanRequestsPanel() {
  const emails = useApi(async (signal) => new Map((await api.get<OperatorAccount[]>('/v1/admin/accounts', signal)).map((account) => [account.id, account.email])), []);
  const requests = useApi((signal) => api.get<PlanRequest[]>('/v1/admin/plan-requests?status=pending', signal), [], { pollMs: 20_000 });
  // Emails beside account ids; read again only when a request arrives from an account not seen yet.
  const unknownAccounts = (requests.data ?? []).map((request) => request.account_id).filter((id) => !emails.data?.has(id)).length;
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState<string | null>(null);

  useEffect(() => {
    if (unknownAccounts > 0 && emails.data) void emails.reload();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [unknownAccounts]);

  async function decide(request: PlanRequest, decision: 'approve' | 'reject') {
    setBusy(request.id);
    setError(null);
    try {
      await api.post(`/v1/admin/plan-requests/${encodeURIComponent(request.id)}/${decision}`, {});
      await requests.reload();
    } catch (caught) {
      setError((caught as Error).message);
    } finally {
      setBusy(null);
    }
  }

  return (
    <section className="panel" aria-labelledby="plan-requests-heading">
      <h2 id="plan-requests-heading">Plan requests to decide</h2>
      <p className="muted">You are an operator of this server: approving puts the plan in force at once, for the current calendar month.</p>
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      <Loaded state={requests} empty={<p>No plan request is waiting.</p>}>
        {(list) => (
          <div className="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Account</th>
                  <th scope="col">Plan</th>
                  <th scope="col">Asked</th>
                  <th scope="col">Decision</th>
                </tr>
              </thead>
              <tbody>
                {list.map((request) => (
                  <tr key={request.id} data-testid={`plan-request-${request.id}`}>
                    <td>
                      <span className="request-email">{emails.data?.get(request.account_id) ?? ''}</span> <Id value={request.account_id} />
                    </td>
                    <td>{request.plan}</td>
                    <td>
                      <TimeAgo iso={request.created_at} />
                    </td>
                    <td className="billing-actions">
                      <button
                        type="button"
                        className="primary"
                        disabled={busy === request.id}
                        aria-label={`Approve ${request.plan} for ${emails.data?.get(request.account_id) ?? request.account_id}`}
                        onClick={() => void decide(request, 'approve')}
                      >
                        Approve
                      </button>
                      <button
                        type="button"
                        className="danger"
                        disabled={busy === request.id}
                        aria-label={`Reject ${request.plan} for ${emails.data?.get(request.account_id) ?? request.account_id}`}
                        onClick={() => void decide(request, 'reject')}
                      >
                        Reject
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Loaded>
    </section>
  );
}
