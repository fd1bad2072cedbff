// What can be added to the directory shown: a file uploaded from this computer, a new folder, a new empty file.
import { useRef, useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { query } from '../../../api/client';
import { childPath, makeDirectory, writeContent } from './files-api';

export function FileToolbar({ sandboxId, directory, onChanged }: { sandboxId: string; directory: string; onChanged: () => void }) {
  const navigate = useNavigate();
  const [name, setName] = useState('');
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const upload = useRef<HTMLInputElement>(null);

  async function act(label: string, action: () => Promise<void>) {
    setBusy(label);
    setError(null);
    try {
      await action();
      onChanged();
    } catch (caught) {
      setError((caught as Error).message);
    } finally {
      setBusy(null);
    }
  }

  function uploadChosen() {
    const files = Array.from(upload.current?.files ?? []);
    if (!files.length) return;
    void act(`Uploading ${files.map((file) => file.name).join(', ')}…`, async () => {
      for (const file of files) await writeContent(sandboxId, childPath(directory, file.name), file);
      if (upload.current) upload.current.value = '';
    });
  }

  function create(kind: 'folder' | 'file') {
    const trimmed = name.trim();
    if (!trimmed) {
      setError(`Type a name for the new ${kind} first.`);
      return;
    }
    const target = childPath(directory, trimmed);
    void act(`Creating ${target}…`, async () => {
      if (kind === 'folder') {
        await makeDirectory(sandboxId, target);
        navigate(query({ path: target }));
      } else {
        await writeContent(sandboxId, target, new Uint8Array());
        navigate(query({ path: directory, file: target }));
      }
      setName('');
    });
  }

  return (
    <div className="panel file-toolbar">
      <div className="form-row">
        <label htmlFor="file-upload">Upload files here</label>
        <input id="file-upload" ref={upload} type="file" multiple onChange={uploadChosen} disabled={busy !== null} />
      </div>
      <form
        className="file-create"
        onSubmit={(event: FormEvent) => {
          event.preventDefault();
          create('file');
        }}
      >
        <label htmlFor="file-new-name">New file or folder name</label>
        <div className="file-create-row">
          <input id="file-new-name" className="mono" value={name} onChange={(event) => setName(event.target.value)} placeholder="notes.txt" autoComplete="off" />
          <button type="submit" className="button" disabled={busy !== null}>
            New file
          </button>
          <button type="button" className="button" disabled={busy !== null} onClick={() => create('folder')}>
            New folder
          </button>
        </div>
      </form>
      {busy && (
        <p className="muted" role="status">
          {busy}
        </p>
      )}
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
