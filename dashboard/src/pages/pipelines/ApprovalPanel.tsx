// Approve or reject, with a comment, the stage of a run that waits in paused_approval.
import { useState } from 'react';
import { api, ApiError } from '../../api/client';
import { TimeAgo } from '../../components/format';
import type { StageRecord } from './types';

export function ApprovalPanel({ runPath, stage, message, onDecided }: { runPath: string; stage: StageRecord; message: string | null; onDecided: () => void }) {
  const [comment, setComment] = useState('');
  const [busy, setBusy] = useState<'approve' | 'reject' | null>(null);
  const [problem, setProblem] = useState<string | null>(null);

  const decide = async (decision: 'approve' | 'reject') => {
    setBusy(decision);
    setProblem(null);
    try {
      await api.post(`${runPath}/${decision}`, comment.trim() ? { comment: comment.trim() } : {});
      setComment('');
      onDecided();
    } catch (caught) {
      setProblem(caught instanceof ApiError ? caught.message : String(caught));
    } finally {
      setBusy(null);
    }
  };

  const fieldId = `approval-comment-${stage.name}`;
  return (
    <section className="panel approval" aria-labelledby={`${fieldId}-title`}>
      <h2 id={`${fieldId}-title`}>Waiting for approval: {stage.name}</h2>
      {message && <p>{message}</p>}
      {stage.approval?.deadline && (
        <p className="muted">
          Decided automatically <TimeAgo iso={stage.approval.deadline} /> if nobody decides.
        </p>
      )}
      <div className="form wide-form">
        <label htmlFor={fieldId}>Comment</label>
        <textarea id={fieldId} value={comment} maxLength={4096} onChange={(event) => setComment(event.target.value)} placeholder="Why (recorded with the decision)" />
        {problem && (
          <p className="form-error" role="alert">
            {problem}
          </p>
        )}
        <div className="button-row">
          <button type="button" className="primary" disabled={busy !== null} onClick={() => void decide('approve')}>
            {busy === 'approve' ? 'Approving…' : 'Approve'}
          </button>
          <button type="button" className="danger" disabled={busy !== null} onClick={() => void decide('reject')}>
            {busy === 'reject' ? 'Rejecting…' : 'Reject'}
          </button>
        </div>
      </div>
    </section>
  );
}
