// A run's state entries (the run state API): key, value, type, who wrote it and when it expires.
import { api } from '../../api/client';
import { TimeAgo } from '../../components/format';
import { Loaded } from '../../components/states';
import { useApi } from '../../hooks/useApi';
import type { StateEntry } from './types';

const SHOWN_VALUE_CHARS = 400;

export function RunStatePanel({ runPath, active, changedAt }: { runPath: string; active: boolean; changedAt: string }) {
  const state = useApi((signal) => api.get<StateEntry[]>(`${runPath}/state`, signal), [runPath, changedAt], { pollMs: active ? 15_000 : undefined });
  return (
    <Loaded state={state} empty={<p>No state entries.</p>}>
      {(entries) => (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Key</th>
                <th scope="col">Value</th>
                <th scope="col">Type</th>
                <th scope="col">Written by</th>
                <th scope="col">Updated</th>
                <th scope="col">Expires</th>
              </tr>
            </thead>
            <tbody>
              {entries.map((entry) => (
                <tr key={entry.key}>
                  <td className="mono">{entry.key}</td>
                  <td className="mono state-value">{entry.value.length > SHOWN_VALUE_CHARS ? `${entry.value.slice(0, SHOWN_VALUE_CHARS)}… (${entry.size_bytes} bytes)` : entry.value}</td>
                  <td>{entry.type}</td>
                  <td>{entry.created_by}</td>
                  <td>
                    <TimeAgo iso={entry.updated_at} />
                  </td>
                  <td>
                    <TimeAgo iso={entry.expires_at} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Loaded>
  );
}
