// The JSON definition a pipeline is created or updated from: a textarea, parsed here, sent as is, and the
// API's own 400/409 message shown beside it when it refuses.
import { useState, type FormEvent } from 'react';
import { ApiError } from '../../api/client';

export const EXAMPLE_DEFINITION = JSON.stringify(
  {
    name: 'release',
    description: 'Checks, then a person approves',
    stages: [
      { name: 'check', type: 'gate', config: { expression: 'true' } },
      { name: 'approve', type: 'await_approval', depends_on: ['check'], config: { message: 'Ship it?' } },
      { name: 'done', type: 'gate', depends_on: ['approve'], config: { expression: 'true' } },
    ],
  },
  null,
  2,
);

export function DefinitionForm({ initial, submitLabel, onSubmit }: { initial: string; submitLabel: string; onSubmit: (definition: unknown) => Promise<void> }) {
  const [text, setText] = useState(initial);
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    let definition: unknown;
    try {
      definition = JSON.parse(text);
    } catch (caught) {
      setProblem(`The definition is not valid JSON: ${(caught as Error).message}`);
      return;
    }
    setBusy(true);
    setProblem(null);
    try {
      await onSubmit(definition);
    } catch (caught) {
      setProblem(caught instanceof ApiError ? caught.message : String(caught));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="form wide-form" onSubmit={(event) => void submit(event)}>
      <label>
        Definition (JSON)
        <textarea className="definition-input" value={text} onChange={(event) => setText(event.target.value)} spellCheck={false} aria-describedby="definition-help" />
      </label>
      <p id="definition-help" className="muted">
        name, description, stages (name, type, depends_on, command, config…) and defaults, as POST /v1/pipelines takes them.
      </p>
      {problem && (
        <p className="form-error" role="alert">
          {problem}
        </p>
      )}
      <div>
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Saving…' : submitLabel}
        </button>
      </div>
    </form>
  );
}
