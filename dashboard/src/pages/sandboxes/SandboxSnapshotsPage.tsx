// /sandboxes/:id/snapshots: take a snapshot, and download (through a signed link), restore or delete one.
// Polled every 15 s: an automatic pause snapshot turns `completed` on its own.
import { useState, type FormEvent } from 'react';
import { api } from '../../api/client';
import { TimeAgo } from '../../components/format';
import { Loaded } from '../../components/states';
import { useApi } from '../../hooks/useApi';
import { ConfirmButton } from './ConfirmButton';
import { formatBytes } from './format';
import { SandboxPage, useSandboxId } from './SandboxPage';
import type { Snapshot } from './types';

export default function SandboxSnapshotsPage() {
  const id = useSandboxId();
  const state = useApi((signal) => api.get<Snapshot[]>(`/v1/sandboxes/${encodeURIComponent(id)}/snapshots`, signal), [id], { pollMs: 15_000 });
  const [name, setName] = useState('');
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  async function act(what: string, run: () => Promise<string | void>) {
    setBusy(what);
    setError(null);
    setNotice(null);
    try {
      const message = await run();
      if (message) setNotice(message);
      await state.reload();
    } catch (caught) {
      setError((caught as Error).message);
    } finally {
      setBusy(null);
    }
  }

  function create(event: FormEvent) {
    event.preventDefault();
    void act('create', async () => {
      await api.post(`/v1/sandboxes/${id}/snapshots`, { name: name.trim() });
      setName('');
      return 'Snapshot taken.';
    });
  }

  async function download(snapshot: Snapshot) {
    const link = await api.get<{ url: string; expires_at: string }>(`/v1/snapshots/${snapshot.id}/download`);
    // The link is signed and served as an attachment: the browser saves it and stays on this page.
    window.location.assign(link.url);
  }

  return (
    <SandboxPage id={id} title="Snapshots">
      <form className="sbx-inline-form panel" onSubmit={create}>
        <label>
          Snapshot name
          <input value={name} onChange={(event) => setName(event.target.value)} required maxLength={128} />
        </label>
        <button type="submit" className="primary" disabled={busy !== null || name.trim() === ''}>
          {busy === 'create' ? 'Taking snapshot…' : 'Take snapshot'}
        </button>
      </form>
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      {notice && (
        <p role="status" className="muted">
          {notice}
        </p>
      )}
      <Loaded state={state} empty={<p>No snapshots of this sandbox yet.</p>}>
        {(snapshots) => (
          <div className="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Status</th>
                  <th scope="col">Kind</th>
                  <th scope="col">Size</th>
                  <th scope="col">Taken</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {snapshots.map((snapshot) => (
                  <tr key={snapshot.id}>
                    <td>
                      {snapshot.name}
                      <div className="muted mono">{snapshot.id}</div>
                    </td>
                    <td>
                      <span className={`status status-${snapshot.status}`}>{snapshot.status}</span>
                      {snapshot.error && <div className="form-error">{snapshot.error}</div>}
                    </td>
                    <td>{snapshot.kind}</td>
                    <td>{formatBytes(snapshot.size_bytes)}</td>
                    <td>
                      <TimeAgo iso={snapshot.created_at} />
                    </td>
                    <td>
                      {snapshot.status === 'completed' && (
                        <div className="sbx-actions">
                          <button type="button" disabled={busy !== null} onClick={() => void act(`download-${snapshot.id}`, () => download(snapshot))} aria-label={`Download ${snapshot.name}`}>
                            Download
                          </button>
                          <ConfirmButton
                            label={`Restore`}
                            confirmLabel="Restore now"
                            question={`Replace the sandbox's files with ${snapshot.name}?`}
                            disabled={busy !== null}
                            onConfirm={() =>
                              void act(`restore-${snapshot.id}`, async () => {
                                await api.post(`/v1/snapshots/${snapshot.id}/restore`, { sandbox_id: id });
                                return `Restored ${snapshot.name}.`;
                              })
                            }
                          />
                          <ConfirmButton
                            label="Delete"
                            confirmLabel="Delete snapshot"
                            question={`Delete ${snapshot.name}?`}
                            disabled={busy !== null}
                            onConfirm={() =>
                              void act(`delete-${snapshot.id}`, async () => {
                                await api.delete(`/v1/snapshots/${snapshot.id}`);
                                return `Deleted ${snapshot.name}.`;
                              })
                            }
                          />
                        </div>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Loaded>
    </SandboxPage>
  );
}
