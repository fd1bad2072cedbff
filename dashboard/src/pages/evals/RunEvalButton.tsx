// Runs a scenario or suite now (it starts sandboxes: the answer comes when the run ends) and reloads the results.
import { useState } from 'react';
import { api, ApiError } from '../../api/client';

export function RunEvalButton({ path, onDone }: { path: string; onDone: () => void }) {
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const run = async () => {
    setBusy(true);
    setProblem(null);
    try {
      await api.post(path);
      onDone();
    } catch (caught) {
      setProblem(caught instanceof ApiError ? caught.message : String(caught));
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <button type="button" className="primary" disabled={busy} onClick={() => void run()}>
        {busy ? 'Running…' : 'Run now'}
      </button>
      {problem && (
        <p className="form-error" role="alert">
          {problem}
        </p>
      )}
    </>
  );
}
