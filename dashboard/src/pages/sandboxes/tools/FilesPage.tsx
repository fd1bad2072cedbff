// A file browser for the sandbox: directories with breadcrumbs, text files viewed and edited, uploads from
// this computer, downloads, new folders and deletes. The directory and the open file are in the URL.
import { useState } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { query } from '../../../api/client';
import { PageTitle } from '../../../components/PageTitle';
import { Id, TimeAgo } from '../../../components/format';
import { Loaded } from '../../../components/states';
import { useApi } from '../../../hooks/useApi';
import { SandboxTabs } from '../SandboxTabs';
import { Breadcrumbs } from './Breadcrumbs';
import { FileToolbar } from './FileToolbar';
import { FileViewer } from './FileViewer';
import { contentUrl, listDirectory, removePath } from './files-api';
import { formatBytes } from './format-bytes';
import type { FileEntry } from './types';
import './tools.css';

const HOME = '/workspace';

export default function FilesPage() {
  const { id = '' } = useParams();
  const [search] = useSearchParams();
  const directory = search.get('path') || HOME;
  const openFile = search.get('file');
  const listing = useApi((signal) => listDirectory(id, directory, signal), [id, directory], { pollMs: 30_000 });
  const [actionError, setActionError] = useState<string | null>(null);

  async function remove(entry: FileEntry) {
    if (!window.confirm(`Delete ${entry.path}${entry.type === 'directory' ? ' and everything in it' : ''}?`)) return;
    setActionError(null);
    try {
      await removePath(id, entry.path);
      await listing.reload();
    } catch (error) {
      setActionError((error as Error).message);
    }
  }

  return (
    <>
      <PageTitle title="Files">
        <Id value={id} />
      </PageTitle>
      <SandboxTabs id={id} />
      <Breadcrumbs path={directory} />
      <FileToolbar sandboxId={id} directory={directory} onChanged={() => void listing.reload()} />
      {actionError && (
        <p className="form-error" role="alert">
          {actionError}
        </p>
      )}
      {openFile && <FileViewer key={openFile} sandboxId={id} path={openFile} directory={directory} onSaved={() => void listing.reload()} />}
      <Loaded state={listing} empty={<p>This directory is empty.</p>}>
        {(entries) => (
          <div className="table-wrap">
            <table className="files-table">
              <caption className="tool-hidden-label">Contents of {directory}</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Size</th>
                  <th scope="col">Modified</th>
                  <th scope="col">Mode</th>
                  <th scope="col">
                    <span className="tool-hidden-label">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {directory !== '/' && (
                  <tr>
                    <td colSpan={5}>
                      <Link to={query({ path: directory.replace(/\/[^/]+\/?$/, '') || '/' })}>.. (parent directory)</Link>
                    </td>
                  </tr>
                )}
                {entries.map((entry) => (
                  <tr key={entry.path}>
                    <td className="mono">
                      {entry.type === 'directory' ? (
                        <Link to={query({ path: entry.path })}>{entry.name}/</Link>
                      ) : entry.type === 'file' ? (
                        <Link to={query({ path: directory, file: entry.path })} aria-current={openFile === entry.path ? 'true' : undefined}>
                          {entry.name}
                        </Link>
                      ) : (
                        <span>
                          {entry.name} <span className="muted">({entry.type})</span>
                        </span>
                      )}
                    </td>
                    <td>{entry.type === 'directory' ? '—' : formatBytes(entry.size)}</td>
                    <td>
                      <TimeAgo iso={entry.modified_at} />
                    </td>
                    <td className="mono">{entry.mode}</td>
                    <td>
                      <div className="files-actions">
                        {entry.type === 'file' && (
                          <a className="button" href={contentUrl(id, entry.path)} download={entry.name} aria-label={`Download ${entry.name}`}>
                            Download
                          </a>
                        )}
                        <button type="button" className="button danger" onClick={() => void remove(entry)} aria-label={`Delete ${entry.name}`}>
                          Delete
                        </button>
                      </div>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Loaded>
    </>
  );
}
