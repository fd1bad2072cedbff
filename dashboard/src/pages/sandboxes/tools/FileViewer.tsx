// One file of the sandbox: text is shown in an editor and saved as raw bytes; anything else is offered
// as a download instead of its bytes. Keyed by path by its parent, so another file starts afresh.
import { useState } from 'react';
import { Link } from 'react-router';
import { query } from '../../../api/client';
import { ErrorState, Loading } from '../../../components/states';
import { useApi } from '../../../hooks/useApi';
import { asText, contentUrl, readContent, writeContent } from './files-api';
import { formatBytes } from './format-bytes';

/** Past this the browser's editor gets slow; such files are downloaded instead. */
const MAX_EDITABLE_BYTES = 2 * 1024 * 1024;

export function FileViewer({ sandboxId, path, directory, onSaved }: { sandboxId: string; path: string; directory: string; onSaved: () => void }) {
  const state = useApi((signal) => readContent(sandboxId, path, signal), [sandboxId, path]);
  const [draft, setDraft] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const [saveError, setSaveError] = useState<Error | null>(null);
  const [savedAt, setSavedAt] = useState<number | null>(null);
  const name = path.split('/').pop() ?? path;
  const text = state.data && state.data.length <= MAX_EDITABLE_BYTES ? asText(state.data) : null;

  async function save() {
    if (draft === null) return;
    setSaving(true);
    setSaveError(null);
    try {
      await writeContent(sandboxId, path, new TextEncoder().encode(draft));
      state.setData(new TextEncoder().encode(draft));
      setDraft(null);
      setSavedAt(Date.now());
      onSaved();
    } catch (error) {
      setSaveError(error as Error);
    } finally {
      setSaving(false);
    }
  }

  const close = (
    <Link className="button" to={query({ path: directory })}>
      Close
    </Link>
  );
  const download = (
    <a className="button" href={contentUrl(sandboxId, path)} download={name}>
      Download
    </a>
  );

  return (
    <section className="panel file-viewer" aria-label={`File ${path}`}>
      <header className="file-viewer-header">
        <h2 className="mono">{path}</h2>
        <div className="file-viewer-actions">
          {text !== null && (
            <button type="button" className="button primary" disabled={draft === null || saving} onClick={() => void save()}>
              {saving ? 'Saving…' : 'Save'}
            </button>
          )}
          {download}
          {close}
        </div>
      </header>
      {saveError && <ErrorState error={saveError} />}
      {savedAt && draft === null && (
        <p className="muted" role="status">
          Saved.
        </p>
      )}
      {state.data === undefined ? (
        state.error ? (
          <ErrorState error={state.error} retry={() => void state.reload()} />
        ) : (
          <Loading label="Opening the file…" />
        )
      ) : text === null ? (
        <p className="state state-empty">
          {state.data.length > MAX_EDITABLE_BYTES ? 'This file is too large to edit here' : 'This file is binary'} ({formatBytes(state.data.length)}): download it instead.
        </p>
      ) : (
        <>
          <label htmlFor="file-content" className="tool-hidden-label">
            Content of {name}
          </label>
          <textarea id="file-content" className="file-editor mono" spellCheck={false} value={draft ?? text} onChange={(event) => setDraft(event.target.value)} />
          {draft !== null && <p className="muted">Unsaved changes.</p>}
        </>
      )}
    </section>
  );
}
