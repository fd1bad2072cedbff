// /sandboxes/:id/ports: the ports a process listens on (the server reads them every 2 s; polled every 5 s),
// each with its preview link and its password.
import { useState, type FormEvent } from 'react';
import { api } from '../../api/client';
import { TimeAgo } from '../../components/format';
import { Loaded } from '../../components/states';
import { useApi } from '../../hooks/useApi';
import { SandboxPage, useSandboxId } from './SandboxPage';
import type { Port } from './types';

export default function SandboxPortsPage() {
  const id = useSandboxId();
  const state = useApi((signal) => api.get<Port[]>(`/v1/sandboxes/${encodeURIComponent(id)}/ports`, signal), [id], { pollMs: 5_000 });
  const [error, setError] = useState<string | null>(null);

  async function change(run: () => Promise<unknown>) {
    setError(null);
    try {
      await run();
      await state.reload();
    } catch (caught) {
      setError((caught as Error).message);
    }
  }

  return (
    <SandboxPage id={id} title="Ports">
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      <Loaded state={state} empty={<p>Nothing listens yet. Start a server bound to 0.0.0.0 inside the sandbox and its port appears here within seconds.</p>}>
        {(ports) => (
          <div className="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Port</th>
                  <th scope="col">Protocol</th>
                  <th scope="col">Preview</th>
                  <th scope="col">Password</th>
                  <th scope="col">Detected</th>
                </tr>
              </thead>
              <tbody>
                {ports.map((port) => (
                  <tr key={port.port}>
                    <td className="mono">{port.port}</td>
                    <td>{port.protocol}</td>
                    <td>
                      {port.preview_url ? (
                        <a href={port.preview_url} target="_blank" rel="noopener noreferrer">
                          Open preview of port {port.port}
                        </a>
                      ) : (
                        <span className="muted">not HTTP</span>
                      )}
                    </td>
                    <td>
                      <Protection
                        port={port}
                        onSet={(password) => change(() => api.post(`/v1/sandboxes/${id}/ports/${port.port}/protect`, { password }))}
                        onClear={() => change(() => api.delete(`/v1/sandboxes/${id}/ports/${port.port}/protect`))}
                      />
                    </td>
                    <td>
                      <TimeAgo iso={port.detected_at} />
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

function Protection({ port, onSet, onClear }: { port: Port; onSet: (password: string) => Promise<void>; onClear: () => Promise<void> }) {
  const [password, setPassword] = useState('');
  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!password) return;
    await onSet(password);
    setPassword('');
  }
  return (
    <div className="sbx-actions">
      {port.protected ? <span className="status status-paused">protected</span> : <span className="muted">public</span>}
      <form className="sbx-inline-form" onSubmit={submit}>
        <label>
          <span className="sbx-hidden">Password for port {port.port}</span>
          <input type="password" value={password} onChange={(event) => setPassword(event.target.value)} autoComplete="new-password" placeholder={port.protected ? 'New password' : 'Password'} />
        </label>
        <button type="submit">{port.protected ? 'Change password' : 'Set password'}</button>
      </form>
      {port.protected && (
        <button type="button" onClick={() => void onClear()}>
          Remove password
        </button>
      )}
    </div>
  );
}
