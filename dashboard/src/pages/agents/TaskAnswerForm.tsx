// Answering a task that waits for input (`input_needed`): the text approves the waiting stage and goes
// along as its comment; rejecting ends the task canceled.
import { useState, type FormEvent } from 'react';
import { api } from '../../api/client';

export function TaskAnswerForm({ taskId, question }: { taskId: string; question: string | null }) {
  const [text, setText] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [sent, setSent] = useState(false);

  async function send(parts: Record<string, unknown>[]) {
    setBusy(true);
    setError(null);
    try {
      await api.post(`/v1/a2a/tasks/${encodeURIComponent(taskId)}/messages`, { parts });
      setSent(true);
      setText('');
    } catch (caught) {
      setError((caught as Error).message);
    } finally {
      setBusy(false);
    }
  }

  const submit = (event: FormEvent) => {
    event.preventDefault();
    void send([{ type: 'text', text }]);
  };

  if (sent) return <p role="status">Answer sent: the task goes on.</p>;
  return (
    <form className="form" onSubmit={submit}>
      <p>
        <strong>The task is waiting for your answer.</strong> {question}
      </p>
      <label>
        Your answer
        <textarea value={text} onChange={(event) => setText(event.target.value)} required rows={3} />
      </label>
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      <div className="form-row">
        <button type="submit" className="primary" disabled={busy}>
          Send answer
        </button>
        <button type="button" className="danger" disabled={busy} onClick={() => void send([...(text ? [{ type: 'text', text }] : []), { type: 'data', data: { decision: 'reject' } }])}>
          Reject and cancel the task
        </button>
      </div>
    </form>
  );
}
