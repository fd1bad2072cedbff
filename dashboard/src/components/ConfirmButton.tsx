// A destructive action asked twice: the first press shows what will happen and a confirming button.
import { useState, type ReactNode } from 'react';

/** `label` is the button's text, `name` its accessible name when the text alone is ambiguous (a row's action). */
export function ConfirmButton({ label, name, confirmLabel, question, onConfirm }: { label: string; name?: string; confirmLabel: string; question: ReactNode; onConfirm(): Promise<void> }) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  if (!asking) {
    return (
      <button type="button" className="danger" aria-label={name} onClick={() => setAsking(true)}>
        {label}
      </button>
    );
  }
  return (
    <span className="confirm" role="group" aria-label={name ?? label}>
      <span>{question}</span>
      <button
        type="button"
        className="danger"
        disabled={busy}
        onClick={() => {
          setBusy(true);
          setError(null);
          onConfirm()
            .then(() => setAsking(false))
            .catch((caught: Error) => setError(caught.message))
            .finally(() => setBusy(false));
        }}
      >
        {confirmLabel}
      </button>
      <button type="button" onClick={() => setAsking(false)}>
        Keep it
      </button>
      {error && (
        <span className="form-error" role="alert">
          {error}
        </span>
      )}
    </span>
  );
}
